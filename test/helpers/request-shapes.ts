/**
 * An API description using the parts of OpenAPI real APIs use and the sandbox's does not: parameter
 * styles, object parameters, path parameters declared out of path order, `x-multi-segment`, form,
 * multipart and raw bodies, several media types, an operation served elsewhere.
 */
export const REQUEST_SHAPES = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/courses/{courseId}/lessons/{lessonId}': {
      delete: {
        operationId: 'deleteLesson',
        parameters: [
          // Declared in the other order than the path names them.
          { name: 'lessonId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'courseId', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'filter',
            in: 'query',
            style: 'deepObject',
            explode: true,
            schema: { type: 'object', properties: { status: { type: 'string' }, created: { type: 'object', properties: { gt: { type: 'integer' } } } } },
          },
          { name: 'opt_fields', in: 'query', explode: false, schema: { type: 'array', items: { type: 'string' } } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          { name: 'tz', in: 'cookie', schema: { type: 'array', items: { type: 'string' } }, explode: false },
        ],
        responses: { 204: { description: 'gone' } },
      },
    },
    '/v1/charges': {
      post: {
        operationId: 'createCharge',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['amount'],
                properties: {
                  amount: { type: 'integer', minimum: 1 },
                  currency: { type: 'string', enum: ['eur', 'usd'] },
                  metadata: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' } },
                  expand: { type: 'array', items: { type: 'string' } },
                },
              },
              encoding: { metadata: { style: 'deepObject', explode: true }, expand: { style: 'deepObject', explode: true } },
            },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
    '/items/{id}': {
      patch: {
        operationId: 'patchItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: {
          content: {
            'application/merge-patch+json': { schema: { type: 'object', properties: { title: { type: ['string', 'null'] } } } },
            'application/json-patch+json': { schema: { type: 'array', items: { type: 'object' } } },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
    '/files/{name}': {
      put: {
        operationId: 'uploadFile',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        responses: { 200: { description: 'ok' } },
      },
    },
    '/attachments': {
      post: {
        operationId: 'attach',
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: { type: 'object', properties: { note: { type: 'string' }, file: { type: 'string', format: 'binary' } } },
              encoding: { file: { contentType: 'text/csv' } },
            },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
    '/repos/{owner}/git/ref/{ref}': {
      get: {
        operationId: 'getRef',
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'ref', in: 'path', required: true, 'x-multi-segment': true, schema: { type: 'string' } },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
    '/uploads': {
      post: {
        operationId: 'uploadElsewhere',
        servers: [{ url: 'https://uploads.example/' }],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } },
        responses: { 200: { description: 'ok' } },
      },
    },
  },
};
