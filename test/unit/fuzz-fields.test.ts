// The -f / -F field syntax of `call`: any input is either a field or a usage error (never a crash),
// and a field built from a path of plain segments lands exactly at that path, in the body and the query.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonValue, buildFields, keyPath, parseHeader, toQuery } from '../../src/commands/call/fields.js';
import { CliError } from '../../src/errors.js';
import { outcomeOf, settled } from '../helpers/outcome.js';

const noStdin = () => Readable.from([]);
const segment = fc.stringMatching(/^[^[\]=]{1,12}$/);

describe('-f / -F fields', () => {
  it('any field text is a field or a usage error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.stringMatching(/^[a-z[\]=]{0,20}$/)), { maxLength: 4 }), fc.boolean(), async (fields, typed) => {
        // `@file` reads a file: kept out of the typed inputs here.
        const safe = typed ? fields.map((f) => f.replace(/=@/g, '=x')) : fields;
        const built = await settled(async () => {
          const out = await buildFields(typed ? [] : safe, typed ? safe : [], noStdin());
          toQuery(out);
          return out;
        });
        if (built.ok) {
          expect(typeof built.value).toBe('object');
        } else {
          expect(built.error).toBeInstanceOf(CliError);
          expect((built.error as CliError).exitCode).toBe(2);
        }
      }),
      { numRuns: 6000 },
    );
  });

  it('a path of plain segments round-trips through keyPath, the JSON body and the query string', async () => {
    await fc.assert(
      fc.asyncProperty(segment, fc.array(segment, { maxLength: 4 }), fc.string({ maxLength: 20 }), async (head, rest, value) => {
        const key = `${head}${rest.map((s) => `[${s}]`).join('')}`;
        expect(keyPath(key)).toEqual([head, ...rest]);
        const out = await buildFields([`${key}=${value}`], [], noStdin());
        let node: JsonValue = out;
        for (const part of [head, ...rest]) node = (node as { [k: string]: JsonValue })[part];
        expect(node).toBe(value);
        expect(toQuery(out).get(key)).toBe(value);
      }),
      { numRuns: 5000 },
    );
  });

  it('-F numbers, booleans and null become JSON types; anything else stays a string', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
          fc.constantFrom('true', 'false', 'null'),
          fc.string({ maxLength: 12 }).filter((s) => !s.startsWith('@')),
        ),
        async (raw) => {
          const { v } = (await buildFields([], [`v=${raw}`], noStdin())) as { v: JsonValue };
          if (raw === 'true' || raw === 'false' || raw === 'null') expect(v).toBe(JSON.parse(raw));
          else if (typeof v === 'number') expect(Number.isFinite(v) && String(Number(raw)) === String(v)).toBe(true);
          else expect(v).toBe(raw);
        },
      ),
      { numRuns: 4000 },
    );
  });

  it('a header is a name and a value without line breaks, or a usage error', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (h) => {
        const parsed = outcomeOf(() => parseHeader(h));
        if (parsed.ok) {
          const [name, value] = parsed.value;
          expect(name).toMatch(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
          expect(value).not.toMatch(/[\r\n\0]/);
        } else {
          expect(parsed.error).toBeInstanceOf(CliError);
        }
      }),
      { numRuns: 4000 },
    );
  });
});
