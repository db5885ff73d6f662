/**
 * An API description of `n` operations (a multiple of 5) over 50 scope areas, as a large school
 * would publish: lists with query parameters, gets, creates, updates and deletes, bodies behind
 * `$ref`s with enums, bounds, nested objects and arrays. For the benchmark and the tests of
 * `school api` at size.
 */
export function bigDescription(n = 500): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < n / 5; i++) {
    const area = `area${i % 50}`;
    schemas[`Thing${i}`] = {
      type: 'object',
      required: ['title'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'What the thing is called' },
        seats: { type: 'integer', minimum: 1, maximum: 500 },
        level: { enum: ['beginner', 'intermediate', 'advanced'] },
        address: { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string', pattern: '^[A-Z]{2}$' } } },
        tags: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    };
    const security = (w: string) => [{ oauth2: [`${area}:${w}`] }];
    const ok = { description: 'OK' };
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
    const body = (required: boolean) => ({ required, content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing${i}` } } } });
    paths[`/api/${area}/things${i}`] = {
      get: {
        operationId: `listThings${i}`,
        summary: `List things ${i}`,
        security: security('read'),
        parameters: [
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { items: { type: 'array', items: { $ref: `#/components/schemas/Thing${i}` } } } } } } },
        },
      },
      post: { operationId: `createThing${i}`, summary: `Create a thing ${i}`, security: security('write'), requestBody: body(true), responses: { 201: ok } },
    };
    paths[`/api/${area}/things${i}/{id}`] = {
      get: { operationId: `getThing${i}`, summary: `Get a thing ${i}`, security: security('read'), parameters: [id], responses: { 200: ok } },
      patch: { operationId: `updateThing${i}`, summary: `Update a thing ${i}`, security: security('write'), parameters: [id], requestBody: body(false), responses: { 200: ok } },
      delete: { operationId: `deleteThing${i}`, summary: `Delete a thing ${i}`, security: security('write'), parameters: [id], responses: { 204: { description: 'Gone' } } },
    };
  }
  return { openapi: '3.1.0', info: { title: 'A large school', version: '1' }, paths, components: { schemas } };
}
