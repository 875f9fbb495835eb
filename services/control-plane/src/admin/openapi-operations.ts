// The operations of an OpenAPI document in a fixed order (path, then method): what the reference
// page and docs/admin-api.md both list.

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
  security?: unknown[];
}

interface Operation {
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
}

export interface ListedOperation extends Operation {
  method: string;
  path: string;
  /** Whether the admin token is needed: the document's default unless the operation says `security: []`. */
  needsToken: boolean;
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];

export function operationsOf(document: OpenApiDocument): ListedOperation[] {
  return Object.keys(document.paths)
    .sort()
    .flatMap((path) =>
      METHODS.filter((method) => document.paths[path]?.[method]).map((method) => {
        const operation = document.paths[path]![method]!;
        const security = operation.security ?? document.security ?? [];
        return { ...operation, method: method.toUpperCase(), path, needsToken: security.length > 0 };
      }),
    );
}

/** A request body's or an answer's schema, whichever media type holds it. */
export function schemaOf(content: Record<string, { schema?: unknown }> | undefined): { type: string; schema: unknown } | undefined {
  const [type, media] = Object.entries(content ?? {})[0] ?? [];
  return type === undefined ? undefined : { type, schema: media?.schema };
}
