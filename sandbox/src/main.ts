// Command-line entry of the sandbox, for demos and for driving the CLI by hand: `npm run sandbox`
// in the clone (`npm run sandbox -- --help` prints the options, users and variants: help.ts).
//
// The first line on stdout is the base URL alone, so scripts can read it; everything meant
// for people goes to stderr.
import { appendFileSync, writeFileSync } from 'node:fs';

import { browserExport, helpText, USAGE } from './help.js';
import { startSandbox, type SandboxEvent, type SandboxOptions } from './index.js';
import { SANDBOX_VARIANTS, type SandboxVariant } from './variants.js';

function parseArgs(argv: string[]) {
  const opts: SandboxOptions & { eventsFile?: string; showEvents: boolean } = { showEvents: true };
  const number = (flag: string, value: string | undefined) => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--port':
        opts.port = number(flag, value());
        break;
      case '--split-origins':
        opts.splitOrigins = true;
        break;
      case '--alt-paths':
        opts.altPaths = true;
        break;
      case '--access-ttl':
        opts.accessTokenTtl = number(flag, value());
        break;
      case '--refresh-ttl':
        opts.refreshTokenTtl = number(flag, value());
        break;
      case '--no-rotation':
        opts.rotateRefreshTokens = false;
        break;
      case '--no-revocation':
        opts.revocation = false;
        break;
      case '--events': {
        const file = value();
        if (!file) throw new Error('--events needs a file name');
        opts.eventsFile = file;
        break;
      }
      case '--quiet':
        opts.quiet = true;
        opts.showEvents = false;
        break;
      case '--variant': {
        const name = value();
        const variant = SANDBOX_VARIANTS.find((v): v is SandboxVariant => v === name);
        if (!variant) throw new Error(`--variant needs one of: ${SANDBOX_VARIANTS.join(', ')} (--help says what each does)`);
        opts.variants = [...(opts.variants ?? []), variant];
        break;
      }
      case '-h':
      case '--help':
        process.stdout.write(helpText());
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  return opts;
}

function describeEvent(e: SandboxEvent): string {
  const { at, type, ...rest } = e;
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${new Date(at).toISOString().slice(11, 23)} ${type} ${fields}`;
}

async function main() {
  let opts: ReturnType<typeof parseArgs>;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`sandbox: ${(err as Error).message}\n${USAGE}`);
    process.exit(64);
  }
  const { eventsFile, showEvents, ...sandboxOpts } = opts;
  if (eventsFile) writeFileSync(eventsFile, '');

  const sandbox = await startSandbox({
    ...sandboxOpts,
    onEvent: (event) => {
      if (eventsFile) appendFileSync(eventsFile, `${JSON.stringify(event)}\n`);
      if (showEvents && event.type !== 'request') console.error(describeEvent(event));
    },
  });

  // Ready for a signal before anyone can learn the address: a caller may stop us right after reading it.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (showEvents) console.error(`sandbox: ${signal}, shutting down`);
    const force = setTimeout(() => process.exit(0), 3000);
    force.unref();
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  // The base URL goes to stdout for scripts; on a terminal that line is already in view, so the
  // notes on stderr do not print it a second time.
  process.stdout.write(`${sandbox.baseUrl}\n`);
  console.error(process.stdout.isTTY ? 'School sandbox running at the base URL above.' : `School sandbox running at ${sandbox.baseUrl}`);
  console.error(sandbox.issuer === sandbox.baseUrl ? 'Authorization server (issuer): the same URL.' : `Authorization server (issuer): ${sandbox.issuer}`);
  console.error(`Metadata: ${sandbox.issuer}/.well-known/oauth-authorization-server`);
  console.error(`Users: ${sandbox.users.map((u) => `${u.username} / ${u.password} (${u.name})`).join(', ')}`);
  console.error(`No display? In another shell, ${browserExport()}: school then signs in through the sandbox's helper, headless.`);
  if (eventsFile) console.error(`Events: ${eventsFile}`);
  console.error('Press Ctrl-C to stop (--help: options, users, variants).');
}

main().catch((err) => {
  console.error('sandbox: failed to start:', err);
  process.exit(1);
});
