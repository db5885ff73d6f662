import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../sandbox/src/openapi.js';
import { buildCatalogue, readOperations } from '../../src/mcp/tools.js';
import { type ListedTool, describeFindings, toolPortabilityFindings } from '../helpers/tool-portability.js';

const objectInput = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const problemsOf = (tool: ListedTool) => toolPortabilityFindings([tool]).map((f) => `${f.at}: ${f.problem}`);

describe('the portability check', () => {
  it('passes a plain tool', () => {
    const tool = {
      name: 'get_course',
      description: 'Read one course.',
      inputSchema: objectInput({ id: { type: 'string', pattern: '^[a-z0-9-]+$' }, level: { type: 'string', enum: ['easy', 'hard'] } }, { required: ['id'], additionalProperties: false }),
      outputSchema: objectInput({ status: { type: 'integer' }, body: {} }),
    };
    expect(problemsOf(tool)).toEqual([]);
  });

  it('finds each thing some host refuses', () => {
    expect(problemsOf({ name: 'x'.repeat(65), inputSchema: objectInput({}) })).toEqual(['name: is not 1 to 64 characters of A-Z, a-z, 0-9, _ and -']);
    expect(problemsOf({ name: 'get course', inputSchema: objectInput({}) })).toHaveLength(1);
    expect(toolPortabilityFindings([{ name: 'x'.repeat(49), inputSchema: objectInput({}) }], { nameLength: 48 })).toHaveLength(1);
    expect(toolPortabilityFindings([{ name: 'x'.repeat(48), inputSchema: objectInput({}) }], { nameLength: 48 })).toEqual([]);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({}, { anyOf: [{ required: ['a'] }, { required: ['b'] }] }) })).toEqual([
      'inputSchema.anyOf: is a composition at the root, which a model API refuses there',
    ]);
    expect(
      toolPortabilityFindings([
        { name: 'a', inputSchema: objectInput({}) },
        { name: 'a', inputSchema: objectInput({}) },
      ]),
    ).toEqual([{ tool: 'a', at: 'name', problem: 'is given to two tools' }]);
    expect(problemsOf({ name: 'a', description: 'red\u001b[31m', inputSchema: objectInput({}) })).toEqual(['description: is not plain text']);
    expect(problemsOf({ name: 'a', description: 'Line one.\n\tLine two.', inputSchema: objectInput({}) })).toEqual([]);
    expect(problemsOf({ name: 'a', inputSchema: { type: 'array', items: {} } })).toEqual(['inputSchema: is not a schema of type object']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({}), outputSchema: { type: 'string' } })).toEqual(['outputSchema: is not a schema of type object']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { type: ['string', 'null'] } }) })).toEqual(['inputSchema.properties.q.type: is not one JSON type']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: true }) })).toEqual(['inputSchema.properties.q: is the boolean schema true, not an object']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { $ref: '#/$defs/Q' } }, { $defs: { Q: { type: 'string' } } }) })).toEqual([
      'inputSchema.$defs: is a reference, not inlined',
      'inputSchema.properties.q.$ref: is a reference, not inlined',
    ]);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { type: 'string', nullable: true } }) })).toEqual(['inputSchema.properties.q.nullable: is a keyword hosts do not all know']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ 'first name': { type: 'string' } }) })).toEqual(['inputSchema.properties: names a property "first name" hosts refuse']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { type: 'string' } }, { required: ['r'] }) })).toEqual(['inputSchema.required: names a property the schema does not have']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { type: 'string', pattern: '(' } }) })).toEqual(['inputSchema.properties.q.pattern: is not a regular expression']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { enum: [] } }) })).toEqual(['inputSchema.properties.q.enum: is not a list of plain values']);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { anyOf: [{ type: 'string' }, false] } }) })).toEqual([
      'inputSchema.properties.q.anyOf[1]: is the boolean schema false, not an object',
    ]);
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: { type: 'string', maxLength: '3' } }) })).toEqual(['inputSchema.properties.q.maxLength: is not a number']);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep };
    expect(problemsOf({ name: 'a', inputSchema: objectInput({ q: deep }) })).toHaveLength(1);
  });
});

describe('the tools school mcp makes pass the portability check', () => {
  const sandboxDescription = buildOpenApi('http://127.0.0.1:9', { authorization_endpoint: 'http://127.0.0.1:9/authorize', token_endpoint: 'http://127.0.0.1:9/token' });

  it("from the sandbox's description: every area a tool, reads and writes", () => {
    const operations = readOperations(sandboxDescription).filter((op) => op.scopes.length > 0);
    const areas = [...new Set(operations.flatMap((op) => op.scopes.map((s) => s.split(':')[0])))];
    const catalogue = buildCatalogue(sandboxDescription, { allowWrite: true, toolsets: areas });
    expect(catalogue.tools.length).toBe(operations.length + 2);
    expect(operations.length).toBeGreaterThan(90);
    const findings = toolPortabilityFindings(catalogue.tools, { nameLength: 48 });
    expect(findings, describeFindings(findings)).toEqual([]);
  });

  it('from the searchable catalogue of a large description', () => {
    const catalogue = buildCatalogue(sandboxDescription, { allowWrite: false });
    expect(catalogue.searchable).toBe(true);
    expect(toolPortabilityFindings(catalogue.tools)).toEqual([]);
  });

  // Any schema at all, as a server might send it: JSON values, with the keywords of JSON Schema
  // and OpenAPI over-represented, local and remote references, and loops through components.
  const keyword = fc.constantFrom(
    'type',
    'properties',
    'items',
    'anyOf',
    'oneOf',
    'allOf',
    'not',
    'required',
    'enum',
    'const',
    'default',
    'pattern',
    'format',
    'nullable',
    'additionalProperties',
    'prefixItems',
    '$ref',
    '$defs',
    'minimum',
    'maxLength',
    'description',
    'title',
    'discriminator',
    'if',
    'then',
    'examples',
  );
  const { schema: anySchema } = fc.letrec((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('#/components/schemas/A', '#/components/schemas/B', 'https://elsewhere.example/s.json', '#/nowhere').map(($ref) => ({ $ref })),
      fc.dictionary(keyword, tie('value'), { maxKeys: 5 }),
    ),
    value: fc.oneof(
      { depthSize: 'small' },
      tie('schema'),
      fc.array(tie('schema'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 12 }), tie('schema'), { maxKeys: 4 }),
      fc.constantFrom('string', 'object', 'array', 'integer', 'null', ['string', 'null'], ['integer', 'boolean'], '(', '^a+$'),
    ),
  }));
  const anyDescription = fc.record({
    components: fc.record({ schemas: fc.record({ A: anySchema, B: anySchema }) }),
    paths: fc.dictionary(
      fc.constantFrom('/a', '/b/{id}', '/c/{x}/{y}', '/d'),
      fc.dictionary(
        fc.constantFrom('get', 'post', 'put', 'patch', 'delete'),
        fc.record(
          {
            operationId: fc.oneof(fc.string({ maxLength: 80 }), fc.constant(undefined)),
            summary: fc.string({ maxLength: 40 }),
            parameters: fc.array(fc.record({ name: fc.string({ maxLength: 20 }), in: fc.constantFrom('path', 'query', 'header', 'cookie', 'body'), required: fc.boolean(), schema: anySchema }), {
              maxLength: 4,
            }),
            requestBody: fc.record({ content: fc.record({ 'application/json': fc.record({ schema: anySchema }) }) }),
          },
          { requiredKeys: ['summary'] },
        ),
        { maxKeys: 3 },
      ),
      { maxKeys: 4 },
    ),
  });

  it('from any description a server could send', () => {
    fc.assert(
      fc.property(anyDescription, (doc) => {
        const findings = toolPortabilityFindings(buildCatalogue(doc, { allowWrite: true }).tools, { nameLength: 48 });
        expect(findings, describeFindings(findings)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
