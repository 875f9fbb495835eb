// Writes services/data-plane/test/support/openai-schemas.json: the schemas of OpenAI's answers that
// openai-schema.test.ts validates the gateway against, cut from OpenAI's published OpenAPI 3.1 document
// (kept outside the repository, beside it in shared/data/specs/openai/), with everything they $ref.
//   tsx services/data-plane/scripts/generate-openai-schemas.ts [--source <openapi.json>]           write it
//   tsx services/data-plane/scripts/generate-openai-schemas.ts [--source <openapi.json>] --check   (pnpm gen:check)
// --check regenerates and compares when the source document is there. Where it is not (a clone without
// shared/), it checks the committed file alone: the source hash it records is present, every $ref resolves,
// and the recorded hash of its schemas matches them (nothing edited by hand), and says so.
//
// What the cut changes, none of which changes what validates:
// - annotations are dropped (description, title, examples, example, default, deprecated, discriminator, x-*):
//   OpenAPI's discriminator is a hint for code generators; the oneOf beside it decides;
// - OpenAPI 3.0's `nullable: true`, left in a few 3.1 schemas, becomes an explicit null alternative;
// - the draft 2019-09 pair `$recursiveAnchor` / `$recursiveRef: "#"` (a compound filter holding compound
//   filters) becomes a plain `$ref` to the schema that declared the anchor (JSON Schema 2020-12 has no
//   `$recursiveRef`).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const REPO = path.resolve(import.meta.dirname, "../../..");
const TARGET = path.join(REPO, "services/data-plane/test/support/openai-schemas.json");
const DEFAULT_SOURCE = path.resolve(REPO, "../shared/data/specs/openai/openapi.json");
/** Where the source is, as the file records it (relative to the repository, so the file is the same on every machine). */
const SCHEMA_ID = "openai-answers";
const SOURCE_LABEL = "../shared/data/specs/openai/openapi.json";

/** The answers the gateway gives on OpenAI's surface, by the name OpenAI's document gives their schema. */
const ROOTS = [
  "CreateChatCompletionResponse",
  "CreateChatCompletionStreamResponse",
  "Response",
  "ResponseStreamEvent",
  "CreateEmbeddingResponse",
  "ListModelsResponse",
  "Model",
  "ErrorResponse",
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ANNOTATIONS = new Set(["description", "title", "examples", "example", "default", "deprecated", "discriminator"]);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
/** Keywords whose value is a schema. */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const REF_PREFIX = "#/components/schemas/";
/** Where the cut keeps them: one JSON Schema 2020-12 document, each component a `$defs` entry. */
const DEFS = "#/$defs/";

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** One schema with annotations dropped and the 3.0 and 2019-09 leftovers rewritten; `home` is the component it sits in. */
function clean(schema: Json, home: string): Json {
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-") || key === "$recursiveAnchor" || key === "nullable") continue;
    if (key === "$recursiveRef") {
      if (value !== "#" || schema.$recursiveAnchor !== undefined) throw new Error(`${home}: unexpected $recursiveRef`);
      out.$ref = `${DEFS}${home}`;
    } else if (key === "$ref" && typeof value === "string") {
      if (!value.startsWith(REF_PREFIX)) throw new Error(`${home}: a $ref outside components.schemas: ${value}`);
      out.$ref = `${DEFS}${value.slice(REF_PREFIX.length)}`;
    } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, clean(sub, home)]));
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = clean(value, home);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => clean(sub, home));
    } else {
      out[key] = value;
    }
  }
  if (schema.nullable !== true) return out;
  if (typeof out.type === "string" && out.enum === undefined) return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}

/** The names a schema $refs, wherever they sit. */
function refsOf(schema: Json, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, into);
  else if (isObject(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "$ref" && typeof value === "string") {
        if (!value.startsWith(DEFS)) throw new Error(`a $ref outside $defs: ${value}`);
        into.add(value.slice(DEFS.length));
      } else refsOf(value, into);
    }
  }
  return into;
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

interface SchemaFile {
  source: { path: string; sha256: string; openapi: string; version: string };
  roots: string[];
  schemas_sha256: string;
  /** Validators add it and address a component as `openai-answers#/$defs/<name>`. */
  schema: { $schema: string; $id: string; $defs: Record<string, Json> };
}

function cut(sourceText: string): string {
  const document = JSON.parse(sourceText) as { openapi: string; info: { version: string }; components: { schemas: Record<string, Json> } };
  const all = document.components.schemas;
  const schemas: Record<string, Json> = {};
  const pending: string[] = [...ROOTS];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (schemas[name] !== undefined) continue;
    if (all[name] === undefined) throw new Error(`the document has no schema ${name}`);
    schemas[name] = clean(all[name], name);
    for (const ref of refsOf(schemas[name], new Set())) if (schemas[ref] === undefined) pending.push(ref);
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name]!]),
  );
  const file: SchemaFile = {
    source: { path: SOURCE_LABEL, sha256: sha256(sourceText), openapi: document.openapi, version: document.info.version },
    roots: [...ROOTS],
    schemas_sha256: sha256(JSON.stringify(sorted)),
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: SCHEMA_ID, $defs: sorted },
  };
  return `${JSON.stringify(file, null, 1)}\n`;
}

/** The committed file checked on its own: what --check can still say without the source document. */
function problemsOf(text: string): string[] {
  const file = JSON.parse(text) as SchemaFile;
  const schemas = file.schema?.$defs ?? {};
  const problems: string[] = [];
  if (!/^[0-9a-f]{64}$/.test(file.source?.sha256 ?? "")) problems.push("no source hash");
  if (file.schemas_sha256 !== sha256(JSON.stringify(schemas))) problems.push("its schemas do not match schemas_sha256 (edited by hand?)");
  for (const root of ROOTS) if (schemas[root] === undefined) problems.push(`root ${root} missing`);
  for (const name of refsOf(schemas as Json, new Set())) if (schemas[name] === undefined) problems.push(`$ref ${name} unresolved`);
  return problems;
}

function main(): void {
  const args = process.argv.slice(2);
  const sourceAt = args.indexOf("--source");
  const source = sourceAt >= 0 ? path.resolve(args[sourceAt + 1]!) : DEFAULT_SOURCE;
  const relative = path.relative(process.cwd(), TARGET);
  if (!args.includes("--check")) {
    writeFileSync(TARGET, cut(readFileSync(source, "utf8")));
    console.log(`wrote ${relative}`);
    return;
  }
  const current = existsSync(TARGET) ? readFileSync(TARGET, "utf8") : "";
  if (current === "") {
    console.error(`${relative} is missing: run \`pnpm gen:openai-schemas\``);
    process.exit(1);
  }
  if (existsSync(source)) {
    if (current !== cut(readFileSync(source, "utf8"))) {
      console.error(`${relative} is stale: run \`pnpm gen:openai-schemas\``);
      process.exit(1);
    }
    console.log(`${relative} is current`);
    return;
  }
  const problems = problemsOf(current);
  if (problems.length > 0) {
    console.error(`${relative}: ${problems.join("; ")}`);
    process.exit(1);
  }
  console.log(`${relative} is consistent (source document ${SOURCE_LABEL} absent: not compared with it)`);
}

main();
