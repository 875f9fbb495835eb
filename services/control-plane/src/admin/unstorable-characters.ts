// PostgreSQL text (and jsonb) cannot hold U+0000, and Prisma cannot send a string with an unpaired
// UTF-16 surrogate: either in a project name, key name, idempotency key or a path id came back as a
// 500. The admin API refuses them first, with 400 naming where they are.
import type { FastifyRequest } from "fastify";
import { invalidRequest } from "../errors";
import { echo } from "@gateway/proto";

/** A high surrogate not followed by a low one, or a low one not after a high one (String#isWellFormed, before ES2024). */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes("\u0000") || UNPAIRED_SURROGATE.test(text);

/** The first place (`body.name`, `params.projectId`) where a string or a key cannot be stored, walked without recursion. */
export function unstorableCharacterAt(root: Record<string, unknown>): string | undefined {
  const pending: [unknown, string][] = Object.entries(root).map(([name, value]) => [value, name]);
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === "string") {
      if (unstorable(value)) return path;
    } else if (typeof value === "object" && value !== null) {
      for (const [name, child] of Object.entries(value)) {
        if (unstorable(name)) return path;
        pending.push([child, `${path}.${name}`]);
      }
    }
  }
  return undefined;
}

/** A preValidation hook of the admin routes. */
export async function refuseUnstorableCharacters(request: FastifyRequest): Promise<void> {
  const at = unstorableCharacterAt({ params: request.params, query: request.query, body: request.body });
  if (at) throw invalidRequest(`${echo(at)} holds a NUL character (U+0000) or an unpaired surrogate, which cannot be stored`);
}
