// Public entry point of the school sandbox: an authorization server and protected API
// that emulate the platform's interface for tests and demonstrations.
export { startSandbox } from './server.js';
export type { Sandbox, SandboxEvent, SandboxOptions } from './server.js';
export type { SandboxUser } from './users.js';
export { ALL_SCOPES, DATA_SCOPES, IDENTITY_SCOPES } from './scopes.js';
export {
  API_PATH,
  CHALLENGE_METADATA_PATH,
  CHALLENGE_SCOPE,
  FOREIGN_SCOPES,
  ISSUER_PATH,
  LARGE_DESCRIPTION_OPERATIONS,
  OTHER_SUBJECT,
  PRE_REGISTERED_CLIENTS,
  SANDBOX_VARIANTS,
  WITHHELD_SCOPE,
  WRITE_CHALLENGE_SCOPE,
} from './variants.js';
export { AREAS, RESOURCES, SEEDED_ORDERS } from './catalogue.js';
export { CLI_NAMES, buildOpenApi, countOperations } from './openapi.js';
export type { DescriptionOptions } from './openapi.js';
export type { SandboxVariant } from './variants.js';
