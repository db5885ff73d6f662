// The platform's data areas as one table: each resource names its scope area, path, fields
// (JSON Schema), filters, who sees what anonymously, and its seeded records. The routes of
// platform.ts and the description of openapi.ts are both made from this table, so what the
// sandbox serves and what it describes cannot drift apart.
import type { Schema } from './schema-check.js';

export type Rec = Record<string, unknown>;
export type OperationKind = 'list' | 'get' | 'create' | 'update' | 'delete';

export interface Filter {
  /** The query parameter, and the record field it is compared with. */
  name: string;
  schema: Schema;
  description: string;
}

export interface ResourceSpec {
  /** The scope area: the part of `<area>:read` / `<area>:write` before the colon. */
  area: string;
  /** Schema and operationId stem, singular: `Member` gives Member, NewMember, MemberUpdate, getMember. */
  name: string;
  /** The operationId stem of the list operation: `Members` gives listMembers. */
  plural: string;
  noun: string;
  nouns: string;
  /** The collection's path (a singleton's own path; a nested list's path with its parent's `{id}`). */
  path: string;
  /** The property of a list answer holding the records. */
  key: string;
  idPrefix: string;
  kind: 'collection' | 'singleton' | 'nested';
  /** A nested list: the field of its records holding the parent's id, and the parent resource. */
  parent?: { resource: string; field: string };
  /** What the resource is, for people: the first sentence of each operation's description. */
  about: string;
  /** Fields a client writes (all optional on update; `required` on create). */
  fields: Record<string, Schema>;
  /** Fields only the server sets. */
  serverFields: Record<string, Schema>;
  required: string[];
  filters: Filter[];
  /** Which records an anonymous caller sees; a singleton's anonymous answer keeps `anonymousFields`. */
  anonymous: 'all' | 'none' | ((record: Rec) => boolean);
  anonymousFields?: string[];
  /** What an anonymous caller sees, in words, where `anonymous` is a rule. */
  anonymousSees?: string;
  /** A valid body: for a new record (a singleton: for an update); the description publishes it. */
  example?: Rec;
  /** What a created record gets when the body leaves a field out. */
  defaults?: Rec;
  /** The operations this table serves and describes (others of the resource are hand-written in api.ts). */
  operations: OperationKind[];
  seed(): Rec[];
}

// ---- schema helpers -------------------------------------------------------------------------

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const text = (maxLength: number, extra: Schema = {}): Schema => ({ type: 'string', minLength: 1, maxLength, ...extra });
const int = (minimum: number, maximum: number, extra: Schema = {}): Schema => ({ type: 'integer', minimum, maximum, ...extra });
const oneOf = (values: string[], description?: string): Schema => ({ type: 'string', enum: values, ...(description ? { description } : {}) });
const dateTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
const list = (items: Schema, maxItems: number, extra: Schema = {}): Schema => ({ type: 'array', items, maxItems, ...extra });
const idOf = (prefix: string, description: string): Schema => ({ type: 'string', pattern: `^${prefix}[a-z0-9-]+$`, description });
const id = (description: string): Schema => ({ type: 'string', readOnly: true, description });
const createdAt: Schema = { type: 'string', format: 'date-time', readOnly: true, description: 'When the record was created' };
const slug: Schema = { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', minLength: 1, maxLength: 80, description: 'Lower-case words joined by hyphens, unique within the school' };
const statusFilter = (values: string[], noun: string): Filter => ({ name: 'status', schema: oneOf(values), description: `Only ${noun} with this status` });

/** Components shared by several resources. */
export const SHARED_SCHEMAS: Record<string, Schema> = {
  Money: {
    type: 'object',
    description: 'An amount in the smallest unit of its currency (cents for EUR and USD)',
    required: ['amount', 'currency'],
    additionalProperties: false,
    properties: {
      amount: { type: 'integer', minimum: 0, maximum: 100_000_000, description: 'Smallest currency unit, e.g. 1999 for 19.99' },
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code', example: 'EUR' },
    },
  },
  Address: {
    type: 'object',
    description: 'A postal address',
    required: ['line1', 'city', 'country'],
    additionalProperties: false,
    properties: {
      line1: text(120),
      line2: { type: 'string', maxLength: 120 },
      city: text(80),
      postal_code: { type: 'string', maxLength: 16, pattern: '^[A-Za-z0-9 -]+$' },
      country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code', example: 'GB' },
    },
  },
};

// ---- deterministic seeds ----------------------------------------------------------------------

const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0);
/** A fixed instant `days` (and `hours`) after the sandbox's epoch, so seeds never depend on the clock. */
const at = (days: number, hours = 0) => new Date(BASE_TIME + (days * 24 + hours) * 3600_000).toISOString().replace('.000Z', 'Z');
const eur = (amount: number) => ({ amount, currency: 'EUR' });
const PEOPLE = ['Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Margaret Hamilton', 'John Backus', 'Frances Allen', 'Tony Hoare'];
const emailOf = (name: string) => `${name.split(' ')[0]!.toLowerCase()}@example.edu`;
const ADDRESSES = [
  { line1: '12 Marylebone Road', city: 'London', postal_code: 'NW1 5LR', country: 'GB' },
  { line1: '4 Rue de la Paix', city: 'Paris', postal_code: '75002', country: 'FR' },
  { line1: 'Unter den Linden 6', city: 'Berlin', postal_code: '10117', country: 'DE' },
];

/** How many orders are seeded: more than three pages at the default page size. */
export const SEEDED_ORDERS = 27;
export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;

// ---- the table ------------------------------------------------------------------------------

export const RESOURCES: ResourceSpec[] = [
  {
    area: 'courses', name: 'Course', plural: 'Courses', noun: 'course', nouns: 'courses', path: '/api/courses', key: 'courses', idPrefix: 'c-',
    kind: 'collection', about: 'Courses are what the school teaches: a title, a lecturer and a number of seats.',
    fields: {
      title: text(200, { description: 'The course title as students see it' }),
      visibility: oneOf(['public', 'private'], 'Public courses are listed to anyone; private ones only to signed-in callers'),
      lecturer: text(120, { description: 'Name of the lecturer' }),
      seats: int(1, 500, { description: 'How many students may enrol' }),
      description: { type: 'string', maxLength: 5000, description: 'Course description (Markdown)' },
    },
    serverFields: { id: id('Course id, e.g. c-101'), created_by: { type: 'string', readOnly: true, description: 'Subject of the user who created it' } },
    example: { title: 'Difference Engines', visibility: 'public', seats: 30, lecturer: 'Ada Lovelace' },
    required: ['title'],
    filters: [],
    anonymous: (c) => c.visibility === 'public', anonymousSees: 'public courses',
    operations: ['update', 'delete'],
    seed: () => [
      { id: 'c-101', title: 'Analytical Engines for Beginners', visibility: 'public', lecturer: 'Ada Lovelace' },
      { id: 'c-102', title: 'On Computable Numbers', visibility: 'public', lecturer: 'Alan Turing' },
      { id: 'c-201', title: 'Cryptanalysis Seminar', visibility: 'private', lecturer: 'Alan Turing' },
    ],
  },
  {
    area: 'students', name: 'Student', plural: 'Students', noun: 'student', nouns: 'students', path: '/api/students', key: 'students', idPrefix: 's-',
    kind: 'collection', about: 'Students are the people enrolled in the school\'s courses.',
    fields: {
      name: text(120, { description: 'Full name' }),
      email: { type: 'string', format: 'email', maxLength: 254, description: 'Where the school writes to the student' },
    },
    serverFields: { id: id('Student id, e.g. s-1') },
    example: { name: 'Barbara Liskov', email: 'barbara@example.edu' },
    required: ['name'],
    filters: [],
    anonymous: 'none',
    operations: ['get', 'update', 'delete'],
    seed: () => [
      { id: 's-1', name: 'Grace Hopper', email: 'grace@example.edu' },
      { id: 's-2', name: 'Edsger Dijkstra', email: 'edsger@example.edu' },
    ],
  },
  {
    area: 'students', name: 'StudentEnrollment', plural: 'StudentEnrollments', noun: 'enrollment', nouns: 'enrollments of a student', path: '/api/students/{id}/enrollments', key: 'enrollments', idPrefix: 'en-',
    kind: 'nested', parent: { resource: 'Student', field: 'student_id' },
    about: 'An enrollment ties a student to a course and records the progress made.',
    fields: {},
    serverFields: {
      id: id('Enrollment id'),
      student_id: { type: 'string', readOnly: true },
      course_id: { type: 'string', readOnly: true },
      status: { ...oneOf(['active', 'completed', 'dropped']), readOnly: true },
      progress_percent: { ...int(0, 100), readOnly: true },
      enrolled_at: createdAt,
    },
    required: [],
    filters: [statusFilter(['active', 'completed', 'dropped'], 'enrollments')],
    anonymous: 'none',
    operations: ['list'],
    seed: () => [
      { id: 'en-1', student_id: 's-1', course_id: 'c-101', status: 'completed', progress_percent: 100, enrolled_at: at(0) },
      { id: 'en-2', student_id: 's-1', course_id: 'c-102', status: 'active', progress_percent: 40, enrolled_at: at(3) },
      { id: 'en-3', student_id: 's-2', course_id: 'c-101', status: 'active', progress_percent: 65, enrolled_at: at(5) },
      { id: 'en-4', student_id: 's-2', course_id: 'c-201', status: 'dropped', progress_percent: 10, enrolled_at: at(6) },
    ],
  },
  {
    area: 'members', name: 'Member', plural: 'Members', noun: 'member', nouns: 'members', path: '/api/members', key: 'members', idPrefix: 'm-',
    kind: 'collection', about: 'Members are the accounts of the school: students, lecturers and administrators.',
    fields: {
      name: text(120, { description: 'Full name' }),
      email: { type: 'string', format: 'email', maxLength: 254 },
      role: oneOf(['student', 'lecturer', 'admin', 'owner'], 'What the member may do in the school'),
      status: oneOf(['active', 'invited', 'suspended']),
      address: ref('Address'),
      tags: list({ type: 'string', minLength: 1, maxLength: 32 }, 10, { uniqueItems: true, description: 'Free labels, at most 10' }),
    },
    serverFields: { id: id('Member id'), joined_at: createdAt },
    example: { name: 'Frances Allen', email: 'frances@example.edu', role: 'student', address: { line1: '1 Main Street', city: 'Paris', country: 'FR' }, tags: ['evening'] },
    required: ['email', 'role'],
    filters: [{ name: 'role', schema: oneOf(['student', 'lecturer', 'admin', 'owner']), description: 'Only members with this role' }, statusFilter(['active', 'invited', 'suspended'], 'members')],
    anonymous: 'none',
    defaults: { status: 'invited', tags: [] },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => PEOPLE.map((name, i) => ({
      id: `m-${i + 1}`, name, email: emailOf(name), role: i === 0 ? 'owner' : i < 3 ? 'lecturer' : 'student',
      status: i === 7 ? 'invited' : 'active', address: ADDRESSES[i % ADDRESSES.length], tags: i % 2 ? ['alumni'] : [], joined_at: at(i * 3),
    })),
  },
  {
    area: 'analytics', name: 'AnalyticsReport', plural: 'AnalyticsReports', noun: 'analytics report', nouns: 'analytics reports', path: '/api/analytics/reports', key: 'reports', idPrefix: 'ar-',
    kind: 'collection', about: 'Analytics reports are time series the platform computes from enrolments, completions and sales.',
    fields: {},
    serverFields: {
      id: id('Report id'),
      metric: { ...oneOf(['enrolments', 'completions', 'revenue', 'active_students']), readOnly: true },
      period: { ...oneOf(['day', 'week', 'month']), readOnly: true },
      generated_at: createdAt,
      points: { type: 'array', readOnly: true, items: { type: 'object', required: ['date', 'value'], properties: { date: { type: 'string', format: 'date' }, value: { type: 'number' } } } },
    },
    required: [],
    filters: [{ name: 'metric', schema: oneOf(['enrolments', 'completions', 'revenue', 'active_students']), description: 'Only reports of this metric' }],
    anonymous: 'none',
    operations: ['list', 'get'],
    seed: () => ['enrolments', 'completions', 'revenue', 'active_students'].flatMap((metric, m) => ['week', 'month'].map((period, p) => ({
      id: `ar-${m * 2 + p + 1}`, metric, period, generated_at: at(30, m + p),
      points: [0, 1, 2].map((k) => ({ date: at(k * (period === 'week' ? 7 : 30)).slice(0, 10), value: (m + 1) * 10 + k * 3 + p })),
    }))),
  },
  {
    area: 'analytics', name: 'AnalyticsSummary', plural: 'AnalyticsSummary', noun: 'analytics summary', nouns: 'analytics summary', path: '/api/analytics/summary', key: 'summary', idPrefix: '',
    kind: 'singleton', about: 'The analytics summary is the school\'s dashboard: totals and this month\'s revenue.',
    fields: {},
    serverFields: {
      students_total: { type: 'integer', minimum: 0, readOnly: true },
      courses_total: { type: 'integer', minimum: 0, readOnly: true },
      active_members: { type: 'integer', minimum: 0, readOnly: true },
      revenue_this_month: { ...ref('Money'), readOnly: true },
      updated_at: createdAt,
    },
    required: [],
    filters: [],
    anonymous: 'none',
    anonymousFields: [],
    operations: ['get'],
    seed: () => [{ students_total: 2, courses_total: 3, active_members: 7, revenue_this_month: eur(184_500), updated_at: at(30) }],
  },
  {
    area: 'curriculum', name: 'CurriculumModule', plural: 'CurriculumModules', noun: 'curriculum module', nouns: 'curriculum modules', path: '/api/curriculum/modules', key: 'modules', idPrefix: 'cm-',
    kind: 'collection', about: 'A curriculum module is one chapter of a course: an ordered list of lessons.',
    fields: {
      course_id: idOf('c-', 'The course the module belongs to, e.g. c-101'),
      title: text(200),
      position: int(1, 1000, { description: 'Order within the course, from 1' }),
      published: { type: 'boolean', description: 'Unpublished modules are hidden from anonymous callers' },
      lessons: list({
        type: 'object', required: ['title', 'kind'], additionalProperties: false,
        properties: { title: text(200), kind: oneOf(['video', 'text', 'quiz', 'assignment']), duration_minutes: int(1, 600) },
      }, 50, { description: 'The lessons of the module, in order' }),
    },
    serverFields: { id: id('Module id'), created_at: createdAt },
    example: { course_id: 'c-101', title: 'Loops and the Jacquard loom', position: 3, lessons: [{ title: 'Punched cards', kind: 'video', duration_minutes: 20 }] },
    required: ['course_id', 'title'],
    filters: [{ name: 'course_id', schema: { type: 'string', pattern: '^c-[a-z0-9-]+$' }, description: 'Only modules of this course' }],
    anonymous: (r) => r.published === true, anonymousSees: 'published modules',
    defaults: { published: false, lessons: [], position: 1 },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'cm-1', course_id: 'c-101', title: 'The Difference Engine', position: 1, published: true, lessons: [{ title: 'Tables of functions', kind: 'video', duration_minutes: 18 }, { title: 'Finite differences', kind: 'text', duration_minutes: 25 }], created_at: at(1) },
      { id: 'cm-2', course_id: 'c-101', title: 'Notes on the Analytical Engine', position: 2, published: true, lessons: [{ title: 'Note G', kind: 'text', duration_minutes: 40 }, { title: 'Bernoulli numbers', kind: 'quiz', duration_minutes: 15 }], created_at: at(2) },
      { id: 'cm-3', course_id: 'c-102', title: 'Machines and numbers', position: 1, published: true, lessons: [{ title: 'The a-machine', kind: 'video', duration_minutes: 32 }], created_at: at(3) },
      { id: 'cm-4', course_id: 'c-201', title: 'Bombes', position: 1, published: false, lessons: [{ title: 'Cribs', kind: 'assignment', duration_minutes: 90 }], created_at: at(4) },
    ],
  },
  {
    area: 'orders', name: 'Order', plural: 'Orders', noun: 'order', nouns: 'orders', path: '/api/orders', key: 'orders', idPrefix: 'o-',
    kind: 'collection', about: 'Orders are purchases of courses, plans and digital products; they are made at checkout, never through the API.',
    fields: {},
    serverFields: {
      id: id('Order id'),
      number: { type: 'string', pattern: '^SO-\\d{5}$', readOnly: true, description: 'The number printed on the invoice' },
      status: { ...oneOf(['pending', 'paid', 'refunded', 'cancelled']), readOnly: true },
      customer: { type: 'object', readOnly: true, required: ['name', 'email'], properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      items: {
        type: 'array', readOnly: true,
        items: { type: 'object', required: ['product_id', 'title', 'quantity', 'unit_price'], properties: { product_id: { type: 'string' }, title: { type: 'string' }, quantity: { type: 'integer', minimum: 1 }, unit_price: ref('Money') } },
      },
      total: { ...ref('Money'), readOnly: true },
      billing_address: { ...ref('Address'), readOnly: true },
      created_at: createdAt,
    },
    required: [],
    filters: [statusFilter(['pending', 'paid', 'refunded', 'cancelled'], 'orders')],
    anonymous: 'none',
    operations: ['list', 'get'],
    seed: () => Array.from({ length: SEEDED_ORDERS }, (_, i) => {
      const name = PEOPLE[i % PEOPLE.length]!;
      const quantity = 1 + (i % 3);
      const price = [4900, 12900, 1999][i % 3]!;
      return {
        id: `o-${1001 + i}`, number: `SO-${String(20001 + i)}`, status: ['paid', 'paid', 'pending', 'refunded', 'cancelled'][i % 5],
        customer: { name, email: emailOf(name) },
        items: [{ product_id: ['c-101', 'mp-1', 'dp-2'][i % 3], title: ['Analytical Engines for Beginners', 'Monthly membership', 'Punched-card templates'][i % 3], quantity, unit_price: eur(price) }],
        total: eur(price * quantity), billing_address: ADDRESSES[i % ADDRESSES.length], created_at: at(i, i % 12),
      };
    }),
  },
  {
    area: 'school', name: 'School', plural: 'School', noun: 'school profile', nouns: 'school profile', path: '/api/school', key: 'school', idPrefix: '',
    kind: 'singleton', about: 'The school profile: its name, address, language and how to reach it.',
    fields: {
      name: text(120),
      subdomain: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$', description: 'The school\'s address on the platform: <subdomain>.school.example' },
      locale: oneOf(['en', 'de', 'fr', 'es', 'pl', 'pt'], 'Language of the school\'s pages and e-mails'),
      timezone: text(64, { description: 'IANA time zone, e.g. Europe/London' }),
      contact_email: { type: 'string', format: 'email' },
      website: { type: 'string', format: 'uri', maxLength: 2048 },
      address: ref('Address'),
    },
    serverFields: { updated_at: { ...createdAt, description: 'When the profile last changed' } },
    example: { name: 'Babbage Institute of Computing', locale: 'en', contact_email: 'office@example.edu' },
    required: [],
    filters: [],
    anonymous: 'all',
    anonymousFields: ['name', 'subdomain', 'locale', 'website'],
    operations: ['get', 'update'],
    seed: () => [{
      name: 'Babbage Institute of Computing', subdomain: 'babbage', locale: 'en', timezone: 'Europe/London', contact_email: 'office@example.edu',
      website: 'https://babbage.school.example', address: ADDRESSES[0], updated_at: at(0),
    }],
  },
  {
    area: 'school', name: 'SchoolCategory', plural: 'SchoolCategories', noun: 'category', nouns: 'categories', path: '/api/school/categories', key: 'categories', idPrefix: 'cat-',
    kind: 'collection', about: 'Categories group the school\'s courses and products in its catalogue.',
    fields: { name: text(80), slug, description: { type: 'string', maxLength: 500 }, position: int(1, 1000) },
    serverFields: { id: id('Category id') },
    example: { name: 'Logic', slug: 'logic', position: 4 },
    required: ['name', 'slug'],
    filters: [],
    anonymous: 'all',
    defaults: { position: 1 },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'cat-1', name: 'Mathematics', slug: 'mathematics', description: 'Numbers, proofs and machines that compute them', position: 1 },
      { id: 'cat-2', name: 'Cryptography', slug: 'cryptography', description: 'Codes and how they are broken', position: 2 },
      { id: 'cat-3', name: 'Programming', slug: 'programming', position: 3 },
    ],
  },
  {
    area: 'appearance', name: 'AppearanceTheme', plural: 'AppearanceTheme', noun: 'theme', nouns: 'theme', path: '/api/appearance/theme', key: 'theme', idPrefix: '',
    kind: 'singleton', about: 'The theme decides how the school\'s site looks: colours, font, layout and logo.',
    fields: {
      primary_color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', description: 'Hex colour, e.g. #1d4ed8' },
      accent_color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
      font: oneOf(['inter', 'merriweather', 'roboto', 'source-serif'], 'Font family of headings and text'),
      layout: oneOf(['classic', 'modern', 'minimal']),
      logo_url: { type: 'string', format: 'uri', maxLength: 2048 },
      custom_css: { type: 'string', maxLength: 10_000 },
    },
    serverFields: { updated_at: { ...createdAt, description: 'When the theme last changed' } },
    example: { primary_color: '#0f766e', layout: 'minimal' },
    required: [],
    filters: [],
    anonymous: 'all',
    anonymousFields: ['primary_color', 'accent_color', 'font', 'layout', 'logo_url', 'custom_css', 'updated_at'],
    operations: ['get', 'update'],
    seed: () => [{ primary_color: '#1d4ed8', accent_color: '#f59e0b', font: 'inter', layout: 'modern', logo_url: 'https://babbage.school.example/logo.svg', custom_css: '', updated_at: at(0) }],
  },
  {
    area: 'appearance', name: 'AppearanceMenu', plural: 'AppearanceMenus', noun: 'menu', nouns: 'menus', path: '/api/appearance/menus', key: 'menus', idPrefix: 'menu-',
    kind: 'collection', about: 'Menus are the navigation of the school\'s site, in its header, footer or sidebar.',
    fields: {
      name: text(80),
      location: oneOf(['header', 'footer', 'sidebar']),
      items: list({
        type: 'object', required: ['label', 'url'], additionalProperties: false,
        properties: { label: text(60), url: { type: 'string', format: 'uri', maxLength: 2048 }, new_tab: { type: 'boolean' } },
      }, 20),
    },
    serverFields: { id: id('Menu id') },
    example: { name: 'Help', location: 'sidebar', items: [{ label: 'FAQ', url: 'https://babbage.school.example/faq' }] },
    required: ['name', 'location'],
    filters: [{ name: 'location', schema: oneOf(['header', 'footer', 'sidebar']), description: 'Only the menus of this location' }],
    anonymous: 'all',
    defaults: { items: [] },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'menu-1', name: 'Main', location: 'header', items: [{ label: 'Courses', url: 'https://babbage.school.example/courses' }, { label: 'Blog', url: 'https://babbage.school.example/blog' }] },
      { id: 'menu-2', name: 'Legal', location: 'footer', items: [{ label: 'Terms', url: 'https://babbage.school.example/terms', new_tab: true }] },
    ],
  },
  {
    area: 'events', name: 'Event', plural: 'Events', noun: 'event', nouns: 'events', path: '/api/events', key: 'events', idPrefix: 'ev-',
    kind: 'collection', about: 'Events are scheduled sessions: live lectures, webinars and open days, online or at a venue.',
    fields: {
      title: text(200),
      starts_at: { type: 'string', format: 'date-time' },
      ends_at: { type: 'string', format: 'date-time' },
      timezone: text(64),
      capacity: int(1, 10_000, { description: 'Seats available' }),
      visibility: oneOf(['public', 'private']),
      status: oneOf(['scheduled', 'cancelled', 'done']),
      location: {
        type: 'object', required: ['kind'], additionalProperties: false, description: 'Where it happens: a meeting URL, or a venue\'s address',
        properties: { kind: oneOf(['online', 'venue']), url: { type: 'string', format: 'uri' }, address: ref('Address') },
      },
    },
    serverFields: { id: id('Event id') },
    example: { title: 'Office hours', starts_at: '2026-03-02T15:00:00Z', capacity: 40, location: { kind: 'online', url: 'https://meet.example/office-hours' } },
    required: ['title', 'starts_at'],
    filters: [statusFilter(['scheduled', 'cancelled', 'done'], 'events'), { name: 'visibility', schema: oneOf(['public', 'private']), description: 'Only events with this visibility' }],
    anonymous: (r) => r.visibility === 'public', anonymousSees: 'public events',
    defaults: { visibility: 'public', status: 'scheduled', timezone: 'Europe/London' },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'ev-1', title: 'Open day', starts_at: at(40, 1), ends_at: at(40, 6), timezone: 'Europe/London', capacity: 200, visibility: 'public', status: 'scheduled', location: { kind: 'venue', address: ADDRESSES[0] } },
      { id: 'ev-2', title: 'Live lecture: Note G', starts_at: at(12, 9), ends_at: at(12, 10), timezone: 'Europe/London', capacity: 500, visibility: 'public', status: 'done', location: { kind: 'online', url: 'https://meet.example/note-g' } },
      { id: 'ev-3', title: 'Staff meeting', starts_at: at(14, 2), timezone: 'Europe/London', capacity: 12, visibility: 'private', status: 'scheduled', location: { kind: 'online', url: 'https://meet.example/staff' } },
      { id: 'ev-4', title: 'Cryptanalysis workshop', starts_at: at(50, 1), timezone: 'Europe/Paris', capacity: 30, visibility: 'public', status: 'cancelled', location: { kind: 'venue', address: ADDRESSES[1] } },
    ],
  },
  {
    area: 'membership_plans', name: 'MembershipPlan', plural: 'MembershipPlans', noun: 'membership plan', nouns: 'membership plans', path: '/api/membership-plans', key: 'membership_plans', idPrefix: 'mp-',
    kind: 'collection', about: 'Membership plans give members access to courses for a recurring price.',
    fields: {
      name: text(80),
      price: ref('Money'),
      interval: oneOf(['month', 'year', 'lifetime'], 'How often the price is charged'),
      trial_days: int(0, 90),
      features: list(text(120), 20, { description: 'Selling points listed on the pricing page' }),
      course_ids: list({ type: 'string', pattern: '^c-[a-z0-9-]+$' }, 200, { uniqueItems: true, description: 'Courses the plan gives access to' }),
      active: { type: 'boolean', description: 'Inactive plans cannot be bought and are hidden from anonymous callers' },
    },
    serverFields: { id: id('Plan id') },
    example: { name: 'Quarterly', price: { amount: 4900, currency: 'EUR' }, interval: 'month', features: ['Every public course'] },
    required: ['name', 'price', 'interval'],
    filters: [{ name: 'interval', schema: oneOf(['month', 'year', 'lifetime']), description: 'Only plans with this interval' }],
    anonymous: (r) => r.active === true, anonymousSees: 'active plans',
    defaults: { trial_days: 0, features: [], course_ids: [], active: true },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'mp-1', name: 'Monthly', price: eur(1999), interval: 'month', trial_days: 7, features: ['Every public course', 'Live lectures'], course_ids: ['c-101', 'c-102'], active: true },
      { id: 'mp-2', name: 'Yearly', price: eur(19_900), interval: 'year', trial_days: 14, features: ['Every course', 'Live lectures', 'Certificates'], course_ids: ['c-101', 'c-102', 'c-201'], active: true },
      { id: 'mp-3', name: 'Founders', price: eur(49_900), interval: 'lifetime', trial_days: 0, features: ['Everything, forever'], course_ids: [], active: false },
    ],
  },
  {
    area: 'coupons', name: 'Coupon', plural: 'Coupons', noun: 'coupon', nouns: 'coupons', path: '/api/coupons', key: 'coupons', idPrefix: 'cp-',
    kind: 'collection', about: 'Coupons take a percentage or a fixed amount off an order at checkout.',
    fields: {
      code: { type: 'string', pattern: '^[A-Z0-9_-]{3,32}$', description: 'What buyers type at checkout: capitals, digits, _ and -' },
      kind: oneOf(['percent', 'fixed']),
      percent_off: int(1, 100, { description: 'For kind percent' }),
      amount_off: ref('Money'),
      max_redemptions: int(1, 100_000),
      expires_at: { type: 'string', format: 'date-time' },
      applies_to: list({ type: 'string', minLength: 1, maxLength: 40 }, 100, { description: 'Ids of the courses, plans and products it is valid for; empty for all' }),
    },
    serverFields: { id: id('Coupon id'), times_redeemed: { type: 'integer', minimum: 0, readOnly: true } },
    example: { code: 'AUTUMN25', kind: 'percent', percent_off: 25, max_redemptions: 100 },
    required: ['code', 'kind'],
    filters: [{ name: 'kind', schema: oneOf(['percent', 'fixed']), description: 'Only coupons of this kind' }],
    anonymous: 'none',
    defaults: { applies_to: [], times_redeemed: 0 },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'cp-1', code: 'WELCOME10', kind: 'percent', percent_off: 10, max_redemptions: 1000, applies_to: [], times_redeemed: 42 },
      { id: 'cp-2', code: 'SPRING-5EUR', kind: 'fixed', amount_off: eur(500), expires_at: at(90), applies_to: ['mp-1'], times_redeemed: 3 },
      { id: 'cp-3', code: 'STAFF', kind: 'percent', percent_off: 100, max_redemptions: 20, applies_to: ['c-201'], times_redeemed: 5 },
    ],
  },
  {
    area: 'posts', name: 'Post', plural: 'Posts', noun: 'post', nouns: 'posts', path: '/api/posts', key: 'posts', idPrefix: 'p-',
    kind: 'collection', about: 'Posts are the articles of the school\'s blog.',
    fields: {
      title: text(200),
      slug,
      body: { type: 'string', maxLength: 20_000, description: 'Markdown' },
      status: oneOf(['draft', 'published', 'archived'], 'Only published posts are shown to anonymous callers'),
      author_id: { type: 'string', pattern: '^m-[0-9]+$', description: 'The member who wrote it' },
      tags: list({ type: 'string', minLength: 1, maxLength: 32 }, 10, { uniqueItems: true }),
      published_at: { type: 'string', format: 'date-time' },
    },
    serverFields: { id: id('Post id'), created_at: createdAt },
    example: { title: 'Term starts', slug: 'term-starts', body: 'See you on Monday.', status: 'published', tags: ['news'] },
    required: ['title', 'slug'],
    filters: [statusFilter(['draft', 'published', 'archived'], 'posts')],
    anonymous: (r) => r.status === 'published', anonymousSees: 'published posts',
    defaults: { status: 'draft', tags: [], body: '' },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'p-1', title: 'Why we teach with engines', slug: 'why-engines', body: 'Machines make ideas visible.', status: 'published', author_id: 'm-1', tags: ['teaching'], published_at: at(2), created_at: at(1) },
      { id: 'p-2', title: 'New course: On Computable Numbers', slug: 'computable-numbers', body: 'Enrol now.', status: 'published', author_id: 'm-2', tags: ['courses', 'news'], published_at: at(8), created_at: at(7) },
      { id: 'p-3', title: 'Exam dates (draft)', slug: 'exam-dates', body: 'To be decided.', status: 'draft', author_id: 'm-1', tags: [], created_at: at(20) },
      { id: 'p-4', title: 'Summer school 2025', slug: 'summer-school-2025', body: 'Thanks to all who came.', status: 'archived', author_id: 'm-3', tags: ['events'], published_at: at(-120), created_at: at(-125) },
    ],
  },
  {
    area: 'subscriptions', name: 'Subscription', plural: 'Subscriptions', noun: 'subscription', nouns: 'subscriptions', path: '/api/subscriptions', key: 'subscriptions', idPrefix: 'sub-',
    kind: 'collection', about: 'A subscription is a member\'s running membership plan and its billing period.',
    fields: {
      member_id: { type: 'string', pattern: '^m-[0-9]+$' },
      plan_id: { type: 'string', pattern: '^mp-[0-9]+$' },
      status: oneOf(['trialing', 'active', 'past_due', 'cancelled']),
      cancel_at_period_end: { type: 'boolean' },
      current_period_end: { type: 'string', format: 'date-time' },
    },
    serverFields: { id: id('Subscription id'), created_at: createdAt },
    example: { member_id: 'm-8', plan_id: 'mp-1' },
    required: ['member_id', 'plan_id'],
    filters: [statusFilter(['trialing', 'active', 'past_due', 'cancelled'], 'subscriptions')],
    anonymous: 'none',
    defaults: { status: 'active', cancel_at_period_end: false },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'sub-1', member_id: 'm-4', plan_id: 'mp-1', status: 'active', cancel_at_period_end: false, current_period_end: at(35), created_at: at(5) },
      { id: 'sub-2', member_id: 'm-5', plan_id: 'mp-2', status: 'trialing', cancel_at_period_end: false, current_period_end: at(19), created_at: at(5) },
      { id: 'sub-3', member_id: 'm-6', plan_id: 'mp-1', status: 'past_due', cancel_at_period_end: true, current_period_end: at(2), created_at: at(-28) },
      { id: 'sub-4', member_id: 'm-7', plan_id: 'mp-3', status: 'cancelled', cancel_at_period_end: false, current_period_end: at(-1), created_at: at(-300) },
    ],
  },
  {
    area: 'digital_products', name: 'DigitalProduct', plural: 'DigitalProducts', noun: 'digital product', nouns: 'digital products', path: '/api/digital-products', key: 'digital_products', idPrefix: 'dp-',
    kind: 'collection', about: 'Digital products are files the school sells: e-books, templates, recordings and bundles of them.',
    fields: {
      title: text(200),
      kind: oneOf(['ebook', 'template', 'audio', 'video', 'bundle']),
      price: ref('Money'),
      file_ids: list({ type: 'string', pattern: '^up-[a-z0-9-]+$' }, 50, { description: 'Uploads delivered to the buyer (see storage)' }),
      published: { type: 'boolean', description: 'Unpublished products are hidden from anonymous callers' },
    },
    serverFields: { id: id('Product id'), created_at: createdAt },
    example: { title: 'Lecture notes', kind: 'ebook', price: { amount: 500, currency: 'EUR' } },
    required: ['title', 'kind', 'price'],
    filters: [{ name: 'kind', schema: oneOf(['ebook', 'template', 'audio', 'video', 'bundle']), description: 'Only products of this kind' }],
    anonymous: (r) => r.published === true, anonymousSees: 'published products',
    defaults: { file_ids: [], published: false },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'dp-1', title: 'Sketch of the Analytical Engine (e-book)', kind: 'ebook', price: eur(900), file_ids: ['up-1'], published: true, created_at: at(3) },
      { id: 'dp-2', title: 'Punched-card templates', kind: 'template', price: eur(1999), file_ids: ['up-2'], published: true, created_at: at(4) },
      { id: 'dp-3', title: 'Enigma lecture recordings', kind: 'video', price: eur(4900), file_ids: [], published: false, created_at: at(9) },
    ],
  },
  {
    area: 'comments', name: 'Comment', plural: 'Comments', noun: 'comment', nouns: 'comments', path: '/api/comments', key: 'comments', idPrefix: 'cmt-',
    kind: 'collection', about: 'Comments are what readers wrote under posts and lessons; they are moderated on the platform.',
    fields: {},
    serverFields: {
      id: id('Comment id'),
      post_id: { type: 'string', readOnly: true },
      author: { type: 'object', readOnly: true, required: ['name'], properties: { name: { type: 'string' }, member_id: { type: 'string' } } },
      body: { type: 'string', readOnly: true },
      status: { ...oneOf(['visible', 'hidden', 'spam']), readOnly: true },
      created_at: createdAt,
    },
    required: [],
    filters: [statusFilter(['visible', 'hidden', 'spam'], 'comments'), { name: 'post_id', schema: { type: 'string', pattern: '^p-[0-9]+$' }, description: 'Only comments on this post' }],
    anonymous: (r) => r.status === 'visible', anonymousSees: 'visible comments',
    operations: ['list', 'get'],
    seed: () => [
      { id: 'cmt-1', post_id: 'p-1', author: { name: 'Grace Hopper', member_id: 'm-1' }, body: 'Hear, hear.', status: 'visible', created_at: at(3) },
      { id: 'cmt-2', post_id: 'p-1', author: { name: 'Anonymous reader' }, body: 'Buy cheap watches', status: 'spam', created_at: at(3, 4) },
      { id: 'cmt-3', post_id: 'p-2', author: { name: 'Barbara Liskov', member_id: 'm-3' }, body: 'Signed up!', status: 'visible', created_at: at(9) },
      { id: 'cmt-4', post_id: 'p-2', author: { name: 'Tony Hoare', member_id: 'm-8' }, body: 'Will there be a sequel?', status: 'hidden', created_at: at(10) },
    ],
  },
  {
    area: 'lecturers', name: 'Lecturer', plural: 'Lecturers', noun: 'lecturer', nouns: 'lecturers', path: '/api/lecturers', key: 'lecturers', idPrefix: 'lec-',
    kind: 'collection', about: 'Lecturers are the people who teach the courses; their profiles are public.',
    fields: {
      name: text(120),
      email: { type: 'string', format: 'email' },
      bio: { type: 'string', maxLength: 2000 },
      website: { type: 'string', format: 'uri' },
      expertise: list(text(60), 15, { uniqueItems: true }),
      social: {
        type: 'object', additionalProperties: false,
        properties: { mastodon: { type: 'string', pattern: '^@[A-Za-z0-9_]+@[A-Za-z0-9.-]+$' }, linkedin: { type: 'string', format: 'uri' } },
      },
    },
    serverFields: { id: id('Lecturer id') },
    example: { name: 'Grace Hopper', email: 'grace@example.edu', expertise: ['compilers'], social: { linkedin: 'https://linkedin.example/grace' } },
    required: ['name', 'email'],
    filters: [],
    anonymous: 'all',
    defaults: { expertise: [] },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'lec-1', name: 'Ada Lovelace', email: 'ada@example.edu', bio: 'Wrote the first published program.', expertise: ['mathematics', 'engines'], social: { mastodon: '@ada@example.social' } },
      { id: 'lec-2', name: 'Alan Turing', email: 'alan@example.edu', bio: 'Computability and cryptanalysis.', website: 'https://turing.example', expertise: ['computability', 'cryptanalysis'], social: {} },
    ],
  },
  {
    area: 'storage', name: 'StorageUpload', plural: 'StorageUploads', noun: 'upload', nouns: 'uploads', path: '/api/storage/uploads', key: 'uploads', idPrefix: 'up-',
    kind: 'collection', about: 'Storage holds the files of the school. Registering an upload returns a short-lived URL to send the bytes to; uploads cannot be listed or read through the API.',
    fields: {
      filename: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^/\\\\]+$', description: 'A file name without any directory' },
      content_type: { type: 'string', pattern: '^[a-z]+/[a-z0-9.+-]+$', description: 'MIME type, e.g. application/pdf' },
      size_bytes: int(1, 2_147_483_648, { description: 'At most 2 GiB' }),
      checksum_sha256: { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'Hex SHA-256 of the file, checked when the bytes arrive' },
      visibility: oneOf(['private', 'public']),
    },
    serverFields: {
      id: id('Upload id'),
      upload_url: { type: 'string', format: 'uri', readOnly: true, description: 'Where to PUT the bytes' },
      expires_at: { type: 'string', format: 'date-time', readOnly: true, description: 'When upload_url stops working' },
      created_at: createdAt,
    },
    example: { filename: 'notes.pdf', content_type: 'application/pdf', size_bytes: 52480, checksum_sha256: 'a3f5c1d2e4b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2' },
    required: ['filename', 'content_type', 'size_bytes'],
    filters: [],
    anonymous: 'none',
    defaults: { visibility: 'private' },
    operations: ['create', 'delete'],
    seed: () => [
      { id: 'up-1', filename: 'sketch.pdf', content_type: 'application/pdf', size_bytes: 1_048_576, visibility: 'private', upload_url: 'https://uploads.school.example/up-1', expires_at: at(1), created_at: at(0) },
      { id: 'up-2', filename: 'templates.zip', content_type: 'application/zip', size_bytes: 5_242_880, visibility: 'private', upload_url: 'https://uploads.school.example/up-2', expires_at: at(2), created_at: at(1) },
    ],
  },
  {
    area: 'forms', name: 'Form', plural: 'Forms', noun: 'form', nouns: 'forms', path: '/api/forms', key: 'forms', idPrefix: 'f-',
    kind: 'collection', about: 'Forms collect information from visitors (sign-ups, surveys); they are built on the platform and read through the API.',
    fields: {},
    serverFields: {
      id: id('Form id'),
      title: { type: 'string', readOnly: true },
      status: { ...oneOf(['open', 'closed']), readOnly: true },
      fields: {
        type: 'array', readOnly: true,
        items: {
          type: 'object', required: ['name', 'type'],
          properties: { name: { type: 'string' }, label: { type: 'string' }, type: oneOf(['text', 'email', 'number', 'choice', 'textarea']), required: { type: 'boolean' }, options: { type: 'array', items: { type: 'string' } } },
        },
      },
      created_at: createdAt,
    },
    required: [],
    filters: [statusFilter(['open', 'closed'], 'forms')],
    anonymous: (r) => r.status === 'open', anonymousSees: 'open forms',
    operations: ['list', 'get'],
    seed: () => [
      { id: 'f-1', title: 'Newsletter sign-up', status: 'open', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }], created_at: at(0) },
      { id: 'f-2', title: 'Course feedback', status: 'open', fields: [{ name: 'course', label: 'Course', type: 'choice', required: true, options: ['c-101', 'c-102'] }, { name: 'rating', label: 'Rating (1-5)', type: 'number', required: true }, { name: 'comments', type: 'textarea', required: false }], created_at: at(10) },
      { id: 'f-3', title: 'Summer school 2025 registration', status: 'closed', fields: [{ name: 'name', type: 'text', required: true }], created_at: at(-150) },
    ],
  },
  {
    area: 'forms', name: 'FormResponse', plural: 'FormResponses', noun: 'form response', nouns: 'responses to a form', path: '/api/forms/{id}/responses', key: 'responses', idPrefix: 'fr-',
    kind: 'nested', parent: { resource: 'Form', field: 'form_id' },
    about: 'A form response is what one visitor submitted.',
    fields: {},
    serverFields: {
      id: id('Response id'),
      form_id: { type: 'string', readOnly: true },
      answers: { type: 'object', readOnly: true, additionalProperties: { type: 'string' }, description: 'Answers by field name' },
      submitted_at: createdAt,
    },
    required: [],
    filters: [],
    anonymous: 'none',
    operations: ['list'],
    seed: () => [
      ...['grace', 'edsger', 'barbara', 'donald', 'margaret'].map((n, i) => ({ id: `fr-${i + 1}`, form_id: 'f-1', answers: { email: `${n}@example.edu` }, submitted_at: at(i + 1) })),
      { id: 'fr-6', form_id: 'f-2', answers: { course: 'c-101', rating: '5', comments: 'Splendid engines.' }, submitted_at: at(12) },
    ],
  },
  {
    area: 'pages', name: 'Page', plural: 'Pages', noun: 'page', nouns: 'pages', path: '/api/pages', key: 'pages', idPrefix: 'pg-',
    kind: 'collection', about: 'Pages are the school site\'s own pages (home, about, landing pages), built from blocks.',
    fields: {
      title: text(200),
      slug,
      status: oneOf(['draft', 'published'], 'Only published pages are shown to anonymous callers'),
      template: oneOf(['default', 'landing', 'blank']),
      blocks: list({
        type: 'object', required: ['kind'], additionalProperties: false,
        properties: { kind: oneOf(['heading', 'text', 'image', 'video', 'call_to_action']), content: { type: 'string', maxLength: 10_000 }, url: { type: 'string', format: 'uri' } },
      }, 100),
      seo: {
        type: 'object', additionalProperties: false, description: 'What search engines show',
        properties: { title: { type: 'string', maxLength: 60 }, description: { type: 'string', maxLength: 160 } },
      },
    },
    serverFields: { id: id('Page id'), updated_at: createdAt },
    example: { title: 'Contact', slug: 'contact', status: 'published', blocks: [{ kind: 'text', content: 'Write to office@example.edu.' }], seo: { title: 'Contact us' } },
    required: ['title', 'slug'],
    filters: [statusFilter(['draft', 'published'], 'pages')],
    anonymous: (r) => r.status === 'published', anonymousSees: 'published pages',
    defaults: { status: 'draft', template: 'default', blocks: [] },
    operations: ['list', 'get', 'create', 'update', 'delete'],
    seed: () => [
      { id: 'pg-1', title: 'Home', slug: 'home', status: 'published', template: 'landing', blocks: [{ kind: 'heading', content: 'Learn to compute' }, { kind: 'call_to_action', content: 'Browse courses', url: 'https://babbage.school.example/courses' }], seo: { title: 'Babbage Institute', description: 'Courses on engines, numbers and codes.' }, updated_at: at(0) },
      { id: 'pg-2', title: 'About us', slug: 'about', status: 'published', template: 'default', blocks: [{ kind: 'text', content: 'Founded in 1837.' }], updated_at: at(1) },
      { id: 'pg-3', title: 'Spring sale', slug: 'spring-sale', status: 'draft', template: 'landing', blocks: [], updated_at: at(20) },
    ],
  },
  {
    area: 'account', name: 'Account', plural: 'Account', noun: 'account', nouns: 'account', path: '/api/account', key: 'account', idPrefix: '',
    kind: 'singleton', about: 'The account is the signed-in person\'s own settings on the platform.',
    fields: {
      name: text(120),
      locale: oneOf(['en', 'de', 'fr', 'es', 'pl', 'pt']),
      timezone: text(64),
      notifications: {
        type: 'object', additionalProperties: false,
        properties: { email_digest: oneOf(['never', 'daily', 'weekly']), product_updates: { type: 'boolean' } },
      },
    },
    serverFields: {
      sub: { type: 'string', readOnly: true, description: 'The user\'s subject, as in the ID token' },
      email: { type: 'string', format: 'email', readOnly: true },
    },
    example: { locale: 'fr', notifications: { email_digest: 'daily' } },
    required: [],
    filters: [],
    anonymous: 'none',
    anonymousFields: [],
    operations: ['get', 'update'],
    // The account answers for the token's user; see platform.ts.
    seed: () => [],
  },
  {
    area: 'account', name: 'AccountInvoice', plural: 'AccountInvoices', noun: 'invoice', nouns: 'invoices', path: '/api/account/invoices', key: 'invoices', idPrefix: 'inv-',
    kind: 'collection', about: 'Invoices are what the platform billed the school for its subscription.',
    fields: {},
    serverFields: {
      id: id('Invoice id'),
      number: { type: 'string', readOnly: true, pattern: '^INV-\\d{4}-\\d{3}$' },
      amount: { ...ref('Money'), readOnly: true },
      status: { ...oneOf(['paid', 'open', 'void']), readOnly: true },
      issued_at: createdAt,
      pdf_url: { type: 'string', format: 'uri', readOnly: true },
    },
    required: [],
    filters: [statusFilter(['paid', 'open', 'void'], 'invoices')],
    anonymous: 'none',
    operations: ['list', 'get'],
    seed: () => [1, 2, 3, 4].map((n) => ({
      id: `inv-${n}`, number: `INV-2026-00${n}`, amount: eur(9900), status: n === 4 ? 'open' : 'paid', issued_at: at((n - 1) * 30), pdf_url: `https://billing.school.example/inv-${n}.pdf`,
    })),
  },
];

/** The scope areas of the platform, in the order of the service interface. */
export const AREAS = [
  'courses', 'students', 'members', 'analytics', 'curriculum', 'orders', 'school', 'appearance', 'events', 'membership_plans',
  'coupons', 'posts', 'subscriptions', 'digital_products', 'comments', 'lecturers', 'storage', 'forms', 'pages', 'account',
] as const;

/** The tag of an area: its name for people. */
export function tagOf(area: string): string {
  const words = area.replace(/_/g, ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

/** The item path of a collection: its path with `/{id}`. */
export function itemPath(spec: ResourceSpec): string {
  return `${spec.path}/{id}`;
}

/** Descriptions of the fields whose schema above says nothing of its own, by resource and field. */
export const FIELD_NOTES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Member: { email: 'Where invitations and notices go; unique within the school', status: 'Invited members have not signed in yet' },
  CurriculumModule: { title: 'The module title as students see it' },
  School: { name: 'The school\'s name as visitors see it', contact_email: 'Where visitors\' questions go', website: 'The school\'s own site, if it has one' },
  SchoolCategory: { name: 'The category\'s name in the catalogue', description: 'A sentence shown under the name', position: 'Order in the catalogue, from 1' },
  AppearanceTheme: { accent_color: 'Hex colour of buttons and links', layout: 'Page layout of the school\'s site', logo_url: 'Image shown in the header', custom_css: 'CSS added after the theme\'s own' },
  AppearanceMenu: { name: 'A name for the school\'s staff; visitors do not see it', location: 'Where on the site the menu appears', items: 'The entries of the menu, in order' },
  Event: {
    title: 'The event title as attendees see it', starts_at: 'Start, with its offset', ends_at: 'End, with its offset; open-ended when left out',
    timezone: 'IANA time zone the event is shown in, e.g. Europe/London', visibility: 'Private events are hidden from anonymous callers', status: 'Cancelled and done events stay listed',
  },
  MembershipPlan: { name: 'The plan name on the pricing page', trial_days: 'Free days before the first charge' },
  Coupon: { kind: 'percent takes percent_off off; fixed takes amount_off off', max_redemptions: 'How many orders may use it', expires_at: 'When it stops working; never when left out' },
  Post: { title: 'The post title as readers see it', tags: 'Labels readers can browse by', published_at: 'When it was or will be published' },
  Subscription: {
    member_id: 'The member who subscribes', plan_id: 'The membership plan subscribed to', status: 'Where the subscription stands in its billing',
    cancel_at_period_end: 'Ends when the current period ends instead of renewing', current_period_end: 'When the current billing period ends',
  },
  DigitalProduct: { title: 'The product title as buyers see it', kind: 'What the buyer receives' },
  Lecturer: {
    name: 'Full name', email: 'Where the school writes to the lecturer; not shown on the profile page', bio: 'A short biography (Markdown)',
    website: 'The lecturer\'s own site', expertise: 'Subjects the lecturer teaches', social: 'Profiles elsewhere',
  },
  StorageUpload: { visibility: 'Public files can be fetched without a signed URL' },
  Page: { title: 'The page title as visitors see it', template: 'The layout the blocks are placed in', blocks: 'The content of the page, top to bottom' },
  Account: { name: 'Your name as others see it', locale: 'Language of the platform for you', timezone: 'IANA time zone times are shown in', notifications: 'Which e-mails you get' },
};
