// The sandbox's API description, made from the same table the routes are (catalogue.ts), plus
// the hand-written operations of courses, lessons, students and echo.
import { AREAS, DEFAULT_PER_PAGE, MAX_PER_PAGE, RESOURCES, tagOf, type OperationKind, type ResourceSpec } from './catalogue.js';
import { ROUTES, platformSchemas, readScopeOf, writeScopeOf } from './platform.js';
import { DATA_SCOPES, IDENTITY_SCOPES, describeScope } from './scopes.js';

interface OAuthUrls {
  authorization_endpoint: string;
  token_endpoint: string;
}

/** Choices a sandbox variant makes about its description (see variants.ts). */
export interface DescriptionOptions {
  /** Give some operations an `x-cli-name`, the name a command line should use instead of the operationId. */
  cliNames?: boolean;
  /** Pad the description with synthetic operations (served under /api/synthetic/) to this many operations in all. */
  totalOperations?: number;
}

/** The `x-cli-name`s of the cli-names variant, by operationId. */
export const CLI_NAMES: Readonly<Record<string, string>> = {
  listCourses: 'courses',
  getCourse: 'course',
  createCourse: 'new-course',
  listMembershipPlans: 'plans',
};

type Json = Record<string, unknown>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** How many operations a description holds. */
export function countOperations(doc: Json): number {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  return Object.values(paths).reduce((n, item) => n + Object.keys(item).filter((k) => HTTP_METHODS.includes(k)).length, 0);
}

const json = (schema: unknown) => ({ 'application/json': { schema } });
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const article = (noun: string) => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const ANONYMOUS_WRITE = 'A request without a token is refused with 403 (never challenged: the platform serves tokenless requests as anonymous).';

function anonymousNote(spec: ResourceSpec, kind: OperationKind): string {
  const served = 'A request without a token is served as anonymous and';
  if (spec.kind === 'singleton') {
    return spec.anonymousFields?.length ? `${served} gets the public fields only (${spec.anonymousFields.join(', ')}).` : `${served} gets \`{"anonymous": true}\` alone.`;
  }
  if (spec.anonymous === 'all') return `${served} sees every record.`;
  if (spec.anonymous === 'none') return `${served} gets ${kind === 'list' ? 'an empty list' : 'a 404'}.`;
  return `${served} sees ${spec.anonymousSees} only.`;
}

function idParameter(spec: ResourceSpec): Json {
  const owner = spec.kind === 'nested' ? RESOURCES.find((r) => r.name === spec.parent!.resource)! : spec;
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: `The ${owner.noun}'s id, e.g. ${owner.seed()[0]?.id ?? `${owner.idPrefix}1`}`,
    schema: { type: 'string', minLength: 1, maxLength: 64 },
  };
}

function listParameters(spec: ResourceSpec): Json[] {
  return [
    ...(spec.kind === 'nested' ? [idParameter(spec)] : []),
    { name: 'page', in: 'query', required: false, description: 'Page number, from 1', schema: { type: 'integer', minimum: 1, default: 1 } },
    {
      name: 'per_page',
      in: 'query',
      required: false,
      description: `Records per page (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE})`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
    },
    ...spec.filters.map((f) => ({ name: f.name, in: 'query', required: false, description: f.description, schema: f.schema })),
  ];
}

/** The described operation of one route of the table. */
function describeOperation(spec: ResourceSpec, kind: OperationKind): Json {
  const read = readScopeOf(spec);
  const write = writeScopeOf(spec);
  const noun = spec.noun;
  const the = spec.kind === 'singleton' ? `the ${noun}` : article(noun);
  const common = { tags: [tagOf(spec.area)] };
  const denied = { 401: responseRef('InvalidToken'), 403: responseRef('Forbidden') };
  const writeBody = (schema: string) => ({ required: true, description: `The ${noun}'s fields (JSON)`, content: json(schemaRef(schema)) });
  switch (kind) {
    case 'list':
      return {
        operationId: `list${spec.plural}`,
        summary: `List ${spec.kind === 'nested' ? 'the ' : ''}${spec.nouns}`,
        description: `${spec.about} ${anonymousNote(spec, kind)} Paginated: ${DEFAULT_PER_PAGE} per page unless per_page says otherwise; the Link header names the first, prev, next and last pages (RFC 8288).`,
        ...common,
        'x-paginated': true,
        security: [{ oauth2: [read] }],
        parameters: listParameters(spec),
        responses: {
          200: {
            description: `One page of ${spec.nouns}`,
            headers: { Link: { description: 'RFC 8288 links to the first, prev, next and last pages', schema: { type: 'string' } } },
            content: json(schemaRef(`${spec.name}List`)),
          },
          400: responseRef('BadRequest'),
          ...denied,
          ...(spec.kind === 'nested' ? { 404: responseRef('NotFound') } : {}),
        },
      };
    case 'get':
      return {
        operationId: `get${spec.name}`,
        summary: `Get ${the}`,
        description: `${spec.about} ${anonymousNote(spec, kind)}`,
        ...common,
        security: [{ oauth2: [read] }],
        ...(spec.kind === 'singleton' ? {} : { parameters: [idParameter(spec)] }),
        responses: { 200: { description: capital(noun), content: json(schemaRef(spec.name)) }, ...denied, 404: responseRef('NotFound') },
      };
    case 'create':
      return {
        operationId: `create${spec.name}`,
        summary: spec.area === 'storage' ? 'Register an upload' : `Create ${the}`,
        description: `${spec.about} Needs a token with ${write}. ${ANONYMOUS_WRITE} The body is checked against New${spec.name}: an invalid one is refused with 400 naming the field.`,
        ...common,
        security: [{ oauth2: [write] }],
        requestBody: writeBody(`New${spec.name}`),
        responses: {
          201: {
            description: `The ${noun} created`,
            headers: { Location: { description: `The new ${noun}'s URL`, schema: { type: 'string', format: 'uri' } } },
            content: json(schemaRef(spec.name)),
          },
          400: responseRef('BadRequest'),
          ...denied,
          415: responseRef('UnsupportedMediaType'),
        },
      };
    case 'update':
      return {
        operationId: `update${spec.name}`,
        summary: `Update ${the}`,
        description: `Changes ${the === article(noun) ? `one ${noun}` : the}: only the fields sent change. Needs a token with ${write}. ${ANONYMOUS_WRITE} The body is checked against ${spec.name}Update: an invalid one is refused with 400 naming the field.`,
        ...common,
        security: [{ oauth2: [write] }],
        ...(spec.kind === 'singleton' ? {} : { parameters: [idParameter(spec)] }),
        requestBody: writeBody(`${spec.name}Update`),
        responses: {
          200: { description: `The ${noun} as it is now`, content: json(schemaRef(spec.name)) },
          400: responseRef('BadRequest'),
          ...denied,
          404: responseRef('NotFound'),
          415: responseRef('UnsupportedMediaType'),
        },
      };
    case 'delete':
      return {
        operationId: `delete${spec.name}`,
        summary: `Delete ${the}`,
        description: `Deletes one ${noun} for good. Needs a token with ${write}. ${ANONYMOUS_WRITE}`,
        ...common,
        security: [{ oauth2: [write] }],
        parameters: [idParameter(spec)],
        responses: { 204: { description: 'Deleted; no body' }, ...denied, 404: responseRef('NotFound') },
      };
    default:
      throw new Error(`no description for ${String(kind)}`);
  }
}

/** The areas whose scopes are used by the synthetic operations: reads for GET, writes for POST. */
const SYNTHETIC_READS = DATA_SCOPES.filter((s) => s.endsWith(':read'));
const SYNTHETIC_WRITES = DATA_SCOPES.filter((s) => s.endsWith(':write'));

/** The scope a synthetic operation needs: GET for even numbers, POST for odd. */
export function syntheticScope(n: number): { method: 'GET' | 'POST'; scope: string } {
  return n % 2 === 0 ? { method: 'GET', scope: SYNTHETIC_READS[(n / 2) % SYNTHETIC_READS.length]! } : { method: 'POST', scope: SYNTHETIC_WRITES[((n - 1) / 2) % SYNTHETIC_WRITES.length]! };
}

/**
 * `count` synthetic operations, shaped like the real ones (scopes, parameters, a body with a
 * `$ref` schema), for measuring clients against a large description. Served under /api/synthetic/.
 */
function syntheticPaths(count: number): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (let n = 0; n < count; n++) {
    const { method, scope } = syntheticScope(n);
    const area = scope.split(':')[0]!;
    const path = `/api/synthetic/${area}/op-${n}`;
    paths[path] = {
      [method.toLowerCase()]:
        method === 'GET'
          ? {
              operationId: `getSyntheticRecord${n}`,
              summary: `Read synthetic record ${n}`,
              description: 'A synthetic operation of the large description, for benchmarks.',
              tags: [tagOf(area)],
              security: [{ oauth2: [scope] }],
              parameters: [
                { name: 'per_page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE } },
                { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['active', 'archived'] } },
              ],
              responses: { 200: { description: 'The record', content: json(schemaRef('SyntheticRecord')) }, 401: responseRef('InvalidToken'), 403: responseRef('Forbidden') },
            }
          : {
              operationId: `createSyntheticRecord${n}`,
              summary: `Create synthetic record ${n}`,
              description: 'A synthetic operation of the large description, for benchmarks.',
              tags: [tagOf(area)],
              security: [{ oauth2: [scope] }],
              requestBody: { required: true, content: json(schemaRef('NewSyntheticRecord')) },
              responses: {
                201: { description: 'Created', content: json(schemaRef('SyntheticRecord')) },
                400: responseRef('BadRequest'),
                401: responseRef('InvalidToken'),
                403: responseRef('Forbidden'),
              },
            },
    };
  }
  return paths;
}

export const SYNTHETIC_SCHEMAS: Record<string, Json> = {
  NewSyntheticRecord: {
    type: 'object',
    required: ['title'],
    additionalProperties: false,
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      status: { type: 'string', enum: ['active', 'archived'] },
      count: { type: 'integer', minimum: 0, maximum: 1000 },
      owner: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      labels: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    },
  },
  SyntheticRecord: { type: 'object', required: ['operation'], properties: { operation: { type: 'integer' }, anonymous: { type: 'boolean' }, title: { type: 'string' } } },
};

// OpenAPI 3.1 description of the sandbox's data API: the hand-written operations of courses,
// lessons, students and echo, and every operation of the table in catalogue.ts. The OAuth URLs
// come from the same values the authorization-server metadata publishes.
export function buildOpenApi(baseUrl: string, urls: OAuthUrls, options: DescriptionOptions = {}): Record<string, unknown> {
  const scopes = Object.fromEntries([...IDENTITY_SCOPES, ...DATA_SCOPES].map((s) => [s, describeScope(s)]));
  const errorRef = { $ref: '#/components/schemas/Error' };
  const errors = {
    401: { description: 'Invalid, expired or revoked access token (WWW-Authenticate names the protected resource metadata)', content: json(errorRef) },
    403: { description: 'Token lacks the required scope, or anonymous write', content: json(errorRef) },
  };
  const anonymousNote = 'A request without a token is served as anonymous.';
  const tag = (area: string) => ({ tags: [tagOf(area)] });

  const paths: Record<string, Json> = {
    '/api/courses': {
      get: {
        operationId: 'listCourses',
        summary: 'List courses',
        description: `${anonymousNote} Anonymous callers see public courses only.`,
        ...tag('courses'),
        security: [{ oauth2: ['courses:read'] }],
        responses: { 200: { description: 'Courses', content: json({ $ref: '#/components/schemas/CourseList' }) }, ...errors },
      },
      post: {
        operationId: 'createCourse',
        summary: 'Create a course',
        description: `Creates a course, private unless visibility says otherwise. Needs a token with courses:write. ${ANONYMOUS_WRITE} The body is checked against NewCourse: an invalid one is refused with 400 naming the field.`,
        ...tag('courses'),
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
        ...tag('courses'),
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
            content: json({ type: 'object', properties: { page: { type: 'integer' }, lessons: { type: 'array', items: { $ref: '#/components/schemas/Lesson' } } } }),
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
        ...tag('courses'),
        security: [{ oauth2: ['courses:read'] }],
        parameters: [{ name: 'id', in: 'path', required: true, description: "The course's id, e.g. c-101", schema: { type: 'string' } }],
        responses: { 200: { description: 'Course', content: json({ $ref: '#/components/schemas/Course' }) }, 404: { description: 'Not found', content: json(errorRef) }, ...errors },
      },
    },
    '/api/students': {
      get: {
        operationId: 'listStudents',
        summary: 'List students',
        description: `${anonymousNote} Anonymous callers get an empty list.`,
        ...tag('students'),
        security: [{ oauth2: ['students:read'] }],
        responses: { 200: { description: 'Students', content: json({ $ref: '#/components/schemas/StudentList' }) }, ...errors },
      },
      post: {
        operationId: 'createStudent',
        summary: 'Enrol a student',
        description: `Adds a student to the school. Needs a token with students:write. ${ANONYMOUS_WRITE} The body is checked against NewStudent: an invalid one is refused with 400 naming the field.`,
        ...tag('students'),
        security: [{ oauth2: ['students:write'] }],
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/NewStudent' }) },
        responses: { 201: { description: 'Created', content: json({ $ref: '#/components/schemas/Student' }) }, 400: { description: 'Invalid body', content: json(errorRef) }, ...errors },
      },
    },
    '/api/echo': Object.fromEntries(
      ['get', 'post', 'put', 'patch', 'delete'].map((method) => [
        method,
        {
          operationId: `echo${method[0]!.toUpperCase()}${method.slice(1)}`,
          summary: 'Echo the request back',
          description: 'Reflects method, path, query, headers (without Authorization), body and the authentication outcome. No scope needed.',
          tags: ['Diagnostics'],
          security: [{}, { oauth2: [] }],
          ...(method === 'get' || method === 'delete' ? {} : { requestBody: { required: false, content: { '*/*': { schema: {} } } } }),
          responses: { 200: { description: 'Echo', content: json({ $ref: '#/components/schemas/Echo' }) }, 401: errors[401] },
        },
      ]),
    ),
  };
  for (const route of ROUTES) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = describeOperation(route.spec, route.kind);
  }
  const wanted = options.totalOperations ?? 0;
  const have = countOperations({ paths });
  if (wanted > have) Object.assign(paths, syntheticPaths(wanted - have));
  if (options.cliNames) {
    for (const item of Object.values(paths)) {
      for (const op of Object.values(item) as Json[]) {
        const name = CLI_NAMES[op.operationId as string];
        if (name) op['x-cli-name'] = name;
      }
    }
  }

  const challenge = {
    description: 'Bearer (or DPoP) challenge with error, error_description, the missing scope where one is missing, and resource_metadata: the URL of the protected resource metadata (RFC 9728)',
    schema: { type: 'string' },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'School API (sandbox)',
      version: '1.0.0',
      description:
        "Protected API of the school sandbox, one area per scope. Requests without a token are served as anonymous and never challenged; writes need a token with the area's :write scope. An invalid token gets 401 and a token lacking the scope 403, each with a WWW-Authenticate header pointing to the protected resource metadata.",
    },
    servers: [{ url: baseUrl }],
    tags: [
      ...AREAS.map((area) => ({
        name: tagOf(area),
        description: `${RESOURCES.find((r) => r.area === area)!.about} Scopes: ${DATA_SCOPES.filter((s) => s.startsWith(`${area}:`)).join(', ')}.`,
      })),
      { name: 'Diagnostics', description: 'Routes for checking a client; no scope needed.' },
    ],
    paths,
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
      responses: {
        BadRequest: { description: 'The body or a query parameter is invalid; `field` names it', content: json(schemaRef('Error')) },
        InvalidToken: { description: 'Invalid, expired or revoked access token', headers: { 'WWW-Authenticate': challenge }, content: json(schemaRef('Error')) },
        Forbidden: {
          description: "The token lacks the operation's scope (insufficient_scope, with a challenge naming the scope), or a write was sent without a token (forbidden, no challenge)",
          headers: { 'WWW-Authenticate': challenge },
          content: json(schemaRef('Error')),
        },
        NotFound: { description: 'No such record, or none the caller may see', content: json(schemaRef('Error')) },
        UnsupportedMediaType: { description: 'The body is not JSON', content: json(schemaRef('Error')) },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string', description: 'invalid_token, insufficient_scope, forbidden, invalid_request or not_found' },
            error_description: { type: 'string' },
            scope: { type: 'string', description: 'The scope the operation needs (insufficient_scope, forbidden)' },
            field: { type: 'string', description: 'The field or query parameter refused (invalid_request), e.g. address.city or lessons[0].kind' },
          },
        },
        ...platformSchemas(),
        CourseList: { type: 'object', properties: { anonymous: { type: 'boolean' }, courses: { type: 'array', items: { $ref: '#/components/schemas/Course' } } } },
        StudentList: { type: 'object', properties: { anonymous: { type: 'boolean' }, students: { type: 'array', items: { $ref: '#/components/schemas/Student' } } } },
        Lesson: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'string' }, title: { type: 'string' }, course: { type: 'string', description: "The course's id" } } },
        Echo: {
          type: 'object',
          properties: {
            method: { type: 'string' },
            path: { type: 'string' },
            query: { type: 'object' },
            headers: { type: 'object' },
            authorization: { enum: ['present', 'absent'] },
            body: {},
            authenticated: { type: 'boolean' },
            scopes: { type: 'array', items: { type: 'string' } },
          },
        },
        ...(wanted > have ? SYNTHETIC_SCHEMAS : {}),
      },
    },
  };
}
