// Preloaded into a `school` process (NODE_OPTIONS=--require): at exit, writes the Node built-in
// modules it loaded, and the files it required, one per line, to $LOADED_MODULES_FILE. Tests
// read it to check what a command's hot path pulls in.
const { writeFileSync } = require('node:fs');

process.once('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  const files = Object.keys(require.cache);
  writeFileSync(process.env.LOADED_MODULES_FILE, `${[...builtins, ...files].join('\n')}\n`);
});
