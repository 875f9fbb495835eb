// Validates answers against OpenAI's published schemas (openai-schemas.json, cut from OpenAI's OpenAPI
// 3.1 document by services/data-plane/scripts/generate-openai-schemas.ts) with ajv's JSON Schema 2020-12
// validator, after relaxing the document where OpenAI's own live answers depart from it (allowances).
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const FILE = path.resolve(import.meta.dirname, "openai-schemas.json");
const SCHEMA_ID = "openai-answers";

/** A place where OpenAI's live answers depart from OpenAI's document, and what they do there. */
export interface Allowance {
  /** What the live answer does that the document refuses. */
  what: string;
  /** JSON pointer into the cut document (`/$defs/<schema>/...`). */
  at: string;
  /** The value there may also match this schema. */
  also?: Json;
  /** These properties may be absent there. */
  optional?: string[];
  /** Why: the live recording (a path in the repository) that sends it, or, for one case, the customer's contract. */
  recording?: string;
  contract?: string;
}

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

function pointTo(document: JsonObject, pointer: string): JsonObject {
  let here: Json = document;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    here = Array.isArray(here) ? here[Number(key)]! : isObject(here) ? here[key]! : undefined!;
    if (here === undefined) throw new Error(`no schema at ${pointer}`);
  }
  if (!isObject(here)) throw new Error(`${pointer} is not a schema`);
  return here;
}

const readDocument = () => (JSON.parse(readFileSync(FILE, "utf8")) as { schema: JsonObject }).schema;

/** The Responses event union's members, by the `type` each one fixes. */
function eventMembers(document: JsonObject): Map<string, string> {
  const members = new Map<string, string>();
  for (const member of (pointTo(document, "/$defs/ResponseStreamEvent").anyOf as { $ref: string }[]) ?? []) {
    const name = member.$ref.replace("#/$defs/", "");
    const type = (pointTo(document, `/$defs/${name}`).properties as JsonObject | undefined)?.type;
    for (const value of isObject(type) && Array.isArray(type.enum) ? type.enum : []) members.set(String(value), name);
  }
  return members;
}

/** The cut document with the allowances applied (a fresh copy). */
function allowing(allowances: readonly Allowance[]): JsonObject {
  const document = readDocument();
  for (const allowance of allowances) {
    const schema = pointTo(document, allowance.at);
    if (allowance.optional) {
      const required = schema.required;
      if (!Array.isArray(required)) throw new Error(`${allowance.at} has no required list`);
      const missing = allowance.optional.filter((name) => !required.includes(name));
      if (missing.length > 0) throw new Error(`${allowance.at} does not require ${missing.join(", ")}`);
      schema.required = required.filter((name) => !allowance.optional!.includes(name as string));
    }
    if (allowance.also !== undefined) {
      const original = { ...schema };
      for (const key of Object.keys(schema)) delete schema[key];
      schema.anyOf = [original, allowance.also];
    }
  }
  return document;
}

export interface OpenAiSchemas {
  /** The problems of `value` as the schema `name` sees it; empty when it validates. */
  check(name: string, value: unknown): string[];
  /** A Responses stream event, checked against the member of OpenAI's event union its `type` names. */
  checkEvent(value: unknown): string[];
}

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`);

export function openAiSchemas(allowances: readonly Allowance[]): OpenAiSchemas {
  const document = allowing(allowances);
  // strictRequired and strictTypes off: OpenAI's schemas require properties declared in an allOf
  // sibling, and omit `type: object` beside `required`, both valid JSON Schema.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  // OpenAI's own format names, on numbers: no constraint beyond the type.
  ajv.addFormat("unixtime", { type: "number", validate: () => true });
  ajv.addFormat("float", { type: "number", validate: () => true });
  ajv.addSchema(document);
  const validators = new Map<string, ValidateFunction>();
  const validator = (name: string) => {
    let found = validators.get(name);
    if (!found) {
      found = ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
      if (!found) throw new Error(`no schema ${name}`);
      validators.set(name, found);
    }
    return found;
  };
  const eventSchemas = eventMembers(readDocument());
  const check = (name: string, value: unknown) => {
    const validate = validator(name);
    return validate(value) ? [] : describe(validate.errors);
  };
  return {
    check,
    checkEvent(value) {
      const type = isObject(value as Json) ? (value as JsonObject).type : undefined;
      const name = eventSchemas.get(String(type));
      if (!name) return [`event type ${JSON.stringify(type)} is not in OpenAI's ResponseStreamEvent union`];
      const problems = check(name, value);
      return problems.length === 0 ? check("ResponseStreamEvent", value) : problems.map((problem) => `${name}: ${problem}`);
    },
  };
}
