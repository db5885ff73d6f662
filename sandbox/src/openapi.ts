import { DATA_SCOPES, IDENTITY_SCOPES, describeScope } from './scopes.js';

interface OAuthUrls {
  authorization_endpoint: string;
  token_endpoint: string;
}

// OpenAPI 3.1 description of the sandbox's small data API. The OAuth URLs come from the
// same values the authorization-server metadata publishes.
export function buildOpenApi(baseUrl: string, urls: OAuthUrls): Record<string, unknown> {
  const scopes = Object.fromEntries(
    [...IDENTITY_SCOPES, ...DATA_SCOPES].map((s) => [s, describeScope(s)]),
  );
  const errorRef = { $ref: '#/components/schemas/Error' };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const errors = {
    401: { description: 'Invalid, expired or revoked access token (WWW-Authenticate names the protected resource metadata)', content: json(errorRef) },
    403: { description: 'Token lacks the required scope, or anonymous write', content: json(errorRef) },
  };
  const anonymousNote = 'A request without a token is served as anonymous.';

  return {
    openapi: '3.1.0',
    info: {
      title: 'School API (sandbox)',
      version: '1.0.0',
      description: 'Protected API of the school sandbox. Requests without a token are served as anonymous; writes need a token with the matching scope.',
    },
    servers: [{ url: baseUrl }],
    paths: {
      '/api/courses': {
        get: {
          operationId: 'listCourses',
          summary: 'List courses',
          description: `${anonymousNote} Anonymous callers see public courses only.`,
          security: [{ oauth2: ['courses:read'] }],
          responses: { 200: { description: 'Courses', content: json({ $ref: '#/components/schemas/CourseList' }) }, ...errors },
        },
        post: {
          operationId: 'createCourse',
          summary: 'Create a course',
          security: [{ oauth2: ['courses:write'] }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/NewCourse' }) },
          responses: { 201: { description: 'Created', content: json({ $ref: '#/components/schemas/Course' }) }, 400: { description: 'Invalid body', content: json(errorRef) }, ...errors },
        },
      },
      '/api/lessons': {
        get: {
          operationId: 'listLessons',
          summary: 'List lessons, page by page',
          description: `${anonymousNote} Paginated: the Link header names the first, prev, next and last pages (RFC 8288).`,
          'x-paginated': true,
          security: [{ oauth2: ['courses:read'] }],
          parameters: [
            { name: 'page', in: 'query', required: false, description: 'Page number, from 1', schema: { type: 'integer', minimum: 1 } },
            { name: 'per_page', in: 'query', required: false, description: 'Lessons per page (default 3, at most 100)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          ],
          responses: {
            200: {
              description: 'One page of lessons',
              headers: { Link: { description: 'RFC 8288 links to the first, prev, next and last pages', schema: { type: 'string' } } },
              content: json({ type: 'object', properties: { page: { type: 'integer' }, lessons: { type: 'array', items: { type: 'object' } } } }),
            },
            ...errors,
          },
        },
      },
      '/api/courses/{id}': {
        get: {
          operationId: 'getCourse',
          summary: 'Get one course',
          description: `${anonymousNote} Private courses are not visible anonymously.`,
          security: [{ oauth2: ['courses:read'] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'Course', content: json({ $ref: '#/components/schemas/Course' }) }, 404: { description: 'Not found', content: json(errorRef) }, ...errors },
        },
      },
      '/api/students': {
        get: {
          operationId: 'listStudents',
          summary: 'List students',
          description: `${anonymousNote} Anonymous callers get an empty list.`,
          security: [{ oauth2: ['students:read'] }],
          responses: { 200: { description: 'Students', content: json({ $ref: '#/components/schemas/StudentList' }) }, ...errors },
        },
        post: {
          operationId: 'createStudent',
          summary: 'Enrol a student',
          security: [{ oauth2: ['students:write'] }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/NewStudent' }) },
          responses: { 201: { description: 'Created', content: json({ $ref: '#/components/schemas/Student' }) }, 400: { description: 'Invalid body', content: json(errorRef) }, ...errors },
        },
      },
      '/api/echo': Object.fromEntries(['get', 'post', 'put', 'patch', 'delete'].map((method) => [method, {
        operationId: `echo${method[0]!.toUpperCase()}${method.slice(1)}`,
        summary: 'Echo the request back',
        description: 'Reflects method, path, query, headers (without Authorization), body and the authentication outcome. No scope needed.',
        security: [{}, { oauth2: [] }],
        ...(method === 'get' || method === 'delete' ? {} : { requestBody: { required: false, content: { '*/*': { schema: {} } } } }),
        responses: { 200: { description: 'Echo', content: json({ $ref: '#/components/schemas/Echo' }) }, 401: errors[401] },
      }])),
    },
    components: {
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Authorization code flow with PKCE (S256). Register dynamically first; see the authorization server metadata.',
          flows: {
            authorizationCode: {
              authorizationUrl: urls.authorization_endpoint,
              tokenUrl: urls.token_endpoint,
              refreshUrl: urls.token_endpoint,
              scopes,
            },
          },
        },
      },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' }, scope: { type: 'string' } } },
        NewCourse: { type: 'object', required: ['title'], properties: { title: { type: 'string' }, visibility: { enum: ['public', 'private'] }, seats: { type: 'integer', minimum: 1, description: 'How many students the course takes' } }, additionalProperties: true },
        Course: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'string' }, title: { type: 'string' }, visibility: { enum: ['public', 'private'] }, lecturer: { type: 'string' }, seats: { type: 'integer', minimum: 1 } }, additionalProperties: true },
        CourseList: { type: 'object', properties: { anonymous: { type: 'boolean' }, courses: { type: 'array', items: { $ref: '#/components/schemas/Course' } } } },
        NewStudent: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, email: { type: 'string' } }, additionalProperties: true },
        Student: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } }, additionalProperties: true },
        StudentList: { type: 'object', properties: { anonymous: { type: 'boolean' }, students: { type: 'array', items: { $ref: '#/components/schemas/Student' } } } },
        Echo: {
          type: 'object',
          properties: {
            method: { type: 'string' }, path: { type: 'string' }, query: { type: 'object' }, headers: { type: 'object' },
            authorization: { enum: ['present', 'absent'] }, body: {}, authenticated: { type: 'boolean' }, scopes: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  };
}
