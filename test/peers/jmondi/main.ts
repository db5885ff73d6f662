// Runs the @jmondi/oauth2-server peer by hand: `npm run peer [-- --access-ttl S]`.
// The first line on stdout is the base URL alone; the rest goes to stderr.
import { startPeer } from './server.js';

const USAGE = 'usage: tsx test/peers/jmondi/main.ts [--access-ttl S]';

function accessTtl(argv: string[]): number | undefined {
  if (argv.length === 0) return undefined;
  const [flag, value] = argv[0]!.includes('=') ? argv[0]!.split('=', 2) : [argv[0], argv[1]];
  const ttl = Number(value);
  if (flag !== '--access-ttl' || !Number.isInteger(ttl) || ttl <= 0 || argv.length > (argv[0]!.includes('=') ? 1 : 2)) {
    console.error(USAGE);
    process.exit(64);
  }
  return ttl;
}

const peer = await startPeer({ accessTokenTtl: accessTtl(process.argv.slice(2)) });
process.stdout.write(`${peer.baseUrl}\n`);
console.error(`Peer authorization server (@jmondi/oauth2-server) at ${peer.baseUrl}`);
console.error(`Metadata: ${peer.issuer}/.well-known/oauth-authorization-server`);
console.error(`Users: ${peer.users.map((u) => `${u.username} / ${u.password} (${u.name})`).join(', ')}`);
console.error('Press Ctrl-C to stop.');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    peer.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
