import type { OpenApiDoc } from '../types/api-description.js';
import { readApiModel } from './operations.js';

export interface Operation {
  /** The operation's name in `school api` (see operations.ts). */
  command: string;
  method: string;
  path: string;
  scopes: string[];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  summary?: string;
  /** True when the operation answers page by page (`x-paginated`, or a `Link` header in its success response). */
  paginated: boolean;
  parameters: OperationParameter[];
}

interface OperationParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  type?: string;
}

export type { OpenApiDoc };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Operations with the scopes each needs, for `call --list`: the operation model's, in its terms. */
export function listOperations(doc: OpenApiDoc): Operation[] {
  return readApiModel(doc).operations.map((op) => ({
    command: op.command,
    method: op.method,
    path: op.path,
    scopes: op.scopes,
    anonymous: op.anonymous,
    summary: op.summary ?? op.operationId,
    paginated: op.paginated,
    parameters: op.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      ...(p.description ? { description: p.description } : {}),
      ...(isObject(p.schema) && typeof p.schema.type === 'string' ? { type: p.schema.type } : {}),
    })),
  }));
}
