// `school __complete`'s answers for `school api`, read from the cached description as the
// completion scripts ask for them (the scripts themselves run in test/e2e/completion.test.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runApi } from '../../src/commands/api/api.js';
import { completeCommand } from '../../src/commands/completion/complete.js';
import type { Deps } from '../../src/deps.js';
import { isPrintable } from '../../src/util/printable.js';
import { describedServer } from '../helpers/described-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const BASE = 'http://127.0.0.1:9';
const fields = { type: 'object', properties: { title: { type: 'string' } } };

const DOC = {
  openapi: '3.1.0',
  paths: {
    '/notes': {
      get: { operationId: 'listNotes' },
      post: {
        operationId: 'addNote',
        requestBody: {
          content: {
            'application/json': { schema: fields },
            // Its bare type names the one above: only the one above is offered for it.
            'application/json; charset=utf-8': { schema: fields },
            'application/merge-patch+json': { schema: fields },
            'application/x-www-form-urlencoded': { schema: fields },
            // Offered as its bare type, which --content-type takes for it.
            'text/csv; header=present': { schema: { type: 'string' } },
            // A range, and names a shell or a terminal would act on: typed by hand if at all, never offered.
            '*/*': {},
            'x;touch$IFS/tmp/pwned': {},
            'text/\u001b]52;c;aGk=\u0007csv': {},
            'image/$(id)': {},
            'text/plain\u202egnp': {},
          },
        },
      },
    },
  },
};

/** Deps whose cache holds the description (`school api` read it once, as a person's first use does). */
async function cachedDeps(doc: unknown): Promise<Deps & ReturnType<typeof fakeDeps>> {
  const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
  await runApi(deps, ['--json']);
  return deps;
}

/** The lines `school __complete <kind> <words…>` prints. */
async function candidates(deps: ReturnType<typeof fakeDeps>, kind: string, ...words: string[]): Promise<string[]> {
  const before = deps.io.stdout().length;
  await completeCommand.execute(() => deps, {}, [kind, ...words]);
  return deps.io
    .stdout()
    .slice(before)
    .split('\n')
    .filter((l) => l !== '');
}

describe('completion of --content-type (school __complete api-media-types <operation>)', () => {
  it("offers exactly the operation's media types, in its order, as --content-type takes them", async () => {
    const deps = await cachedDeps(DOC);
    expect(await candidates(deps, 'api-media-types', 'add-note')).toEqual(['application/json', 'application/merge-patch+json', 'application/x-www-form-urlencoded', 'text/csv']);
  });

  it('each word offered sends the media type it names', async () => {
    const deps = await cachedDeps(DOC);
    const file = join(mkdtempSync(join(tmpdir(), 'school-media-')), 'notes.csv');
    writeFileSync(file, 'title\nAlgebra\n');
    const sent: Record<string, string> = {};
    for (const word of await candidates(deps, 'api-media-types', 'add-note')) {
      const before = deps.io.stdout().length;
      const body = word === 'text/csv' ? ['--input', file] : ['--title', 'Algebra'];
      await runApi(deps, ['add-note', '--content-type', word, ...body, '--dry-run', '--json']);
      const shown = JSON.parse(deps.io.stdout().slice(before)) as { headers: Record<string, string> };
      sent[word] = shown.headers['content-type'];
    }
    expect(sent).toEqual({
      'application/json': 'application/json',
      'application/merge-patch+json': 'application/merge-patch+json',
      'application/x-www-form-urlencoded': 'application/x-www-form-urlencoded',
      'text/csv': 'text/csv; header=present',
    });
  });

  it('offers nothing for an operation without a body, an unknown operation, or no operation', async () => {
    const deps = await cachedDeps(DOC);
    expect(await candidates(deps, 'api-media-types', 'list-notes')).toEqual([]);
    expect(await candidates(deps, 'api-media-types', 'add-nothing')).toEqual([]);
    expect(await candidates(deps, 'api-media-types')).toEqual([]);
  });

  it('offers nothing before a description is cached, and asks no server for one', async () => {
    const server = describedServer(DOC);
    const deps = fakeDeps({ http: server.http, env: { SCHOOL_BASE_URL: BASE } });
    expect(await candidates(deps, 'api-media-types', 'add-note')).toEqual([]);
    expect(server.seen).toEqual([]);
  });

  it('offers only plain words, whatever media types a description names', async () => {
    const hostile = ['a/b c', 'a/b\nc/d', 'a/b;rm -rf ~', 'a/`id`', "a/b'c", 'a/b"c', 'a/b|c', 'a/b&c', 'a/b>c', '\u200ba/b', 'a/b\u0085', 'a/*', 'a/b#c', 'a/b!c', '-x/y', `a/${'b'.repeat(200)}`];
    const doc = { paths: { '/x': { post: { operationId: 'send', requestBody: { content: Object.fromEntries([...hostile, 'a/plain'].map((t) => [t, {}])) } } } } };
    const offered = await candidates(await cachedDeps(doc), 'api-media-types', 'send');
    expect(offered).toContain('a/plain');
    for (const word of offered) {
      expect(isPrintable(word), word).toBe(true);
      expect(word, JSON.stringify(word)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._+-]*\/[A-Za-z0-9][A-Za-z0-9._+-]*$/);
    }
  });
});
