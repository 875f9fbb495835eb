// The catalogue file's JSON-schema faults as problems against its entries. The upload route
// validates with every error collected (`allErrors`), not fastify's first-error-only default, so
// an operator sees every broken entry at once.
import { echo } from "@gateway/proto/echo";
import { Ajv, type ErrorObject } from "ajv";
import { type CatalogueProblem, modelAt, problem, summary } from "./catalogue-problems";

/** fastify's own validator options (coercion, defaults, removal of forbidden properties), with every error collected. */
const collectingAjv = new Ajv({ coerceTypes: "array", useDefaults: true, removeAdditional: true, allErrors: true });

/** A fastify validatorCompiler for the upload route: its body and query, every error kept. */
export const collectingValidator = ({ schema }: { schema: object }) => collectingAjv.compile(schema);

/** `/models/3/paths/0/price` -> `paths[0].price` (the entry's own part; the whole pointer outside an entry). */
function fieldOf(pointer: string): string {
  const parts = pointer.split("/").slice(1);
  const inEntry = parts[0] === "models" || parts[0] === "inventory" ? parts.slice(2) : parts;
  return inEntry.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : `${index > 0 ? "." : ""}${part}`)).join("");
}

/** One error in words, with the pointer of what it is about. */
function described(error: ErrorObject): { pointer: string; words: string } | undefined {
  const at = error.instancePath;
  // Empty at an entry's or the file's root: the message then names the model, or nothing.
  const field = fieldOf(at) || (at === "" ? "the file" : "the entry");
  const params = error.params as Record<string, unknown>;
  // A forbidden property name: the enum under `propertyNames` carries the name; its wrapper says nothing more.
  if (error.keyword === "propertyNames") return undefined;
  if (error.propertyName !== undefined) {
    const name = echo(error.propertyName);
    const words = /\/price(\/|$)/.test(at) ? `${name} is not a price component the gateway bills` : `${name} is not a property of ${field}`;
    return { pointer: `${at}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, words: `${field}: ${words}` };
  }
  switch (error.keyword) {
    case "required":
      return { pointer: at, words: `${fieldOf(at) ? `${field}: ` : ""}${String(params.missingProperty)} is missing` };
    case "type":
      return { pointer: at, words: `${field} must be ${String(params.type).replace(",", " or ")}` };
    case "enum":
      return { pointer: at, words: `${field} must be one of ${(params.allowedValues as unknown[]).join(", ")}` };
    case "const":
      return { pointer: at, words: `${field} must be ${JSON.stringify(params.allowedValue)}` };
    case "pattern":
      return { pointer: at, words: `${field} ${echo(JSON.stringify(error.data) ?? "")} does not have the form ${String(params.pattern)}` };
    case "minimum":
      return { pointer: at, words: `${field} must be at least ${String(params.limit)}` };
    case "minItems":
      return { pointer: at, words: `${field} needs at least ${String(params.limit)} entry` };
    case "minLength":
      return { pointer: at, words: `${field} must not be empty` };
    case "maxLength":
      return { pointer: at, words: `${field} must be at most ${String(params.limit)} characters` };
    default:
      return { pointer: at, words: `${field} ${error.message ?? "is not valid"}` };
  }
}

/** The schema's errors as problems, each against the model entry it is in (named at the message's start). */
export function schemaProblems(file: unknown, errors: readonly ErrorObject[]): CatalogueProblem[] {
  return errors.flatMap((error) => {
    const fault = described(error);
    if (!fault) return [];
    const model = modelAt(file, fault.pointer);
    return [problem(fault.pointer, model, model ? `${model} ${fault.words}` : fault.words)];
  });
}

/** The errors in one line as fastify words them (`body/models/0/paths/0/price must be ...`), the first few only. */
export const schemaMessage = (errors: readonly ErrorObject[]): string =>
  summary(
    errors.map((error) => `body${error.instancePath} ${error.message ?? "is not valid"}`),
    ", ",
  );

/** The entries (`/models/3`) a problem is in: the semantic checks leave them out. */
export function brokenEntries(problems: readonly CatalogueProblem[]): Set<string> {
  const entries = problems.map((problem) => /^\/(models|inventory)\/\d+/.exec(problem.pointer)?.[0] ?? "");
  return new Set(entries);
}
