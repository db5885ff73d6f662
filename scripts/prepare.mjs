// npm runs this after installing the checkout's own dependencies: `npm ci` in a clone, and the
// clone it makes for a git install (`npm install -g git+https://...`), which then needs dist/
// to exist. Without the dev dependencies (`npm ci --omit=dev`) there is nothing to build with,
// and that is not an install failure: say so and leave dist/ as it is. `npm pack` and
// `npm publish` run this too, right after `prepack` has built (and type-checked): once is enough.
if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);
try {
  await import('esbuild');
} catch {
  console.error('school: esbuild is not installed (dev dependencies omitted), so dist/ was not built; run `npm run build` after installing them.');
  process.exit(0);
}
await import('./build.mjs');
