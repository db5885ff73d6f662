// `school api` as a person and a script see it, through the built binary, for descriptions shaped
// as real ones are: Kubernetes' path parameters declared in another order than the path names
// them, GitHub's whole long names and nullable oneOf fields, HTML and Markdown descriptions.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWords } from '../helpers/described-server.js';
import { expectSuccess, runSchool, userEnv } from './harness.js';

const LONG_ID = 'enterpriseAdminSetGithubActionsDefaultWorkflowPermissionsOrganization';

const description = {
  openapi: '3.0.3',
  info: { title: 'Real-shaped', version: '1' },
  paths: {
    '/api/v1/namespaces/{namespace}/pods/{name}': {
      parameters: [
        { name: 'name', in: 'path', required: true, description: 'name of the Pod', schema: { type: 'string' } },
        { name: 'namespace', in: 'path', required: true, description: 'object name and auth scope', schema: { type: 'string' } },
      ],
      delete: { operationId: 'deleteCoreV1NamespacedPod', tags: ['core_v1'], responses: { 200: { description: 'OK' } } },
    },
    '/enterprises/{enterprise}/actions/permissions/workflow': {
      put: {
        operationId: LONG_ID,
        tags: ['enterprise-admin'],
        summary: 'Set default workflow permissions',
        description: '<p>Sets the default <strong>workflow permissions</strong> &amp; more.</p><ul><li>read</li><li>write</li></ul>\n\n**Note:** see [the docs](https://docs.example.com/x).',
        parameters: [{ name: 'enterprise', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 204: { description: 'No content' } },
      },
    },
    '/repos/{owner}/{repo}/issues/{issue_number}': {
      patch: {
        operationId: 'issues/update',
        tags: ['issues'],
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'issue_number', in: 'path', required: true, schema: { type: 'integer' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  title: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
                  milestone: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
                  state: { type: 'string', enum: ['open', 'closed'] },
                },
              },
            },
          },
        },
        responses: { 200: { description: 'OK' } },
      },
    },
  },
};

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const server = createServer((req, res) => {
    if (req.url === '/openapi.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(description));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = () => new Promise<void>((r) => server.close(() => r()));
});
afterAll(() => close());

describe('school api for descriptions shaped as real ones', () => {
  const env = () => userEnv({ SCHOOL_BASE_URL: url });

  it('takes path arguments in the order its help shows them, the order the path names them', async () => {
    const e = env();
    const help = expectSuccess(await runSchool(['api', 'delete-core-v1-namespaced-pod', '--help'], e)).stdout;
    expect(help).toContain('school api delete-core-v1-namespaced-pod <namespace> <name> [flags]');
    const example = /\nExample:\n {2}(.*)\n/.exec(help)![1];
    expect(example).toBe('school api delete-core-v1-namespaced-pod my-namespace my-name');
    // Following the help sends what it says.
    const res = expectSuccess(await runSchool(['api', 'delete-core-v1-namespaced-pod', 'default', 'mypod', '--dry-run'], e));
    expect(res.stdout.split('\n')[0]).toBe(`DELETE ${url}/api/v1/namespaces/default/pods/mypod`);
  });

  it('gives whole names, typed whole, and the same rows to school api --json and call --list --json', async () => {
    const e = env();
    const whole = 'enterprise-admin-set-github-actions-default-workflow-permissions-organization';
    const listing = expectSuccess(await runSchool(['api'], e)).stdout;
    expect(listing).toContain(`  ${whole}  PUT`);
    expect(listing).toMatch(/^Marks:\n {2}\[anonymous\] +it needs no token$/m);
    expectSuccess(await runSchool(['api', whole, 'acme', '--dry-run'], e));
    const rows = JSON.parse(expectSuccess(await runSchool(['api', '--json'], e)).stdout);
    expect(rows.map((r: { command: string }) => r.command)).toEqual(['delete-core-v1-namespaced-pod', whole, 'issues-update']);
    expect(rows[1]).toMatchObject({ operationId: LONG_ID, area: 'enterprise-admin' });
    expect(rows[2]).toMatchObject({
      media_types: ['application/json'],
      parameters: [
        { name: 'owner', position: 1 },
        { name: 'repo', position: 2 },
        { name: 'issue_number', position: 3 },
      ],
      body_fields: expect.arrayContaining([{ name: 'milestone', required: false, type: 'json', flag: '--milestone' }]),
    });
    const call = JSON.parse(expectSuccess(await runSchool(['call', '--list', '--json'], e)).stdout);
    expect(call).toEqual(rows);
  });

  it('shows an HTML and Markdown description as plain text, and an example the checks accept', async () => {
    const e = env();
    const help = expectSuccess(await runSchool(['api', 'enterprise-admin-set-github-actions-default-workflow-permissions-organization', '--help'], e)).stdout;
    expect(help).not.toMatch(/<p>|<strong>|<li>|\*\*|&amp;/);
    expect(help).toContain('  Sets the default workflow permissions & more.\n\n  - read\n  - write\n\n  Note: see the docs (https://docs.example.com/x).');
    const issue = expectSuccess(await runSchool(['api', 'issues-update', '--help'], e)).stdout;
    const example = shellWords(/\nExample:\n {2}(.*)\n/.exec(issue)![1]);
    expect(example.slice(0, 6)).toEqual(['school', 'api', 'issues-update', 'my-owner', 'my-repo', '1']);
    expectSuccess(await runSchool([...example.slice(1), '--dry-run'], e));
  });

  it('accepts null where the description allows it, and names the forms a oneOf allows', async () => {
    const e = env();
    const ok = expectSuccess(await runSchool(['api', 'issues-update', 'o', 'r', '7', '--milestone', 'null', '--dry-run', '--json'], e));
    expect(JSON.parse(ok.stdout).body).toEqual({ milestone: null });
    const bad = await runSchool(['api', 'issues-update', 'o', 'r', '7', '--milestone', 'true', '--dry-run'], e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Not sent: --milestone must be one of: a string, an integer, or null (got true).');
  });

  it('reads the line once, whichever parser sees it first: global flags before api or after the operation', async () => {
    const e = userEnv();
    const before = expectSuccess(await runSchool(['--base-url', url, '--json', 'api', 'issues-update', 'o', 'r', '7', '--state', 'open', '--dry-run'], e));
    const after = expectSuccess(await runSchool(['api', 'issues-update', 'o', 'r', '7', '--state', 'open', '--dry-run', '--base-url', url, '--json'], e));
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
    const ambiguous = await runSchool(['api', 'issues-update', 'o', 'r', '7', '--milestone', '--base-url', url, '--dry-run'], userEnv({ SCHOOL_BASE_URL: url }));
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/cannot tell whether --base-url is its flag or a value of another/);
  });
});
