// The parts of an OpenAPI document the CLI reads. It comes from a server: every field may be missing or of another shape.

type ParameterDoc = { name?: string; in?: string; required?: boolean; description?: string; schema?: { type?: string } };
type OperationDoc = {
  summary?: string;
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: ParameterDoc[];
  'x-paginated'?: boolean;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

type PathItemDoc = { parameters?: ParameterDoc[] } & { [M in (typeof HTTP_METHODS)[number]]?: OperationDoc };
export type OpenApiDoc = {
  paths?: Record<string, PathItemDoc>;
  security?: Array<Record<string, string[]>>;
};
