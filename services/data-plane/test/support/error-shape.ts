// What an error answer must look like (docs/errors.md): JSON, `x-should-retry`, and the table's
// shape, OpenAI's `{"error":{"type","code","message","param"}}` or, on /v1/messages and its count_tokens,
// Anthropic's `{"type":"error","error":{"type","message","code"}}`. Returns what is wrong, if anything.
import type { RawAnswer } from "./raw-http";

const isText = (value: unknown) => typeof value === "string" && value.length > 0;
const isCode = (value: unknown) => isText(value) || typeof value === "number";

export function errorShapeProblem(answer: RawAnswer, dialect: "openai" | "anthropic", withBody = true): string | undefined {
  if (!/^(true|false)$/.test(String(answer.headers["x-should-retry"]))) return "no x-should-retry header";
  if (!withBody) return undefined;
  if (!String(answer.headers["content-type"]).startsWith("application/json")) return `content-type ${answer.headers["content-type"]}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return "a body that is not JSON";
  }
  const outer = body as Record<string, unknown>;
  const error = outer?.error as Record<string, unknown> | undefined;
  const expectedOuter = dialect === "anthropic" ? ["type", "error"] : ["error"];
  if (typeof outer !== "object" || outer === null || Object.keys(outer).sort().join() !== expectedOuter.sort().join())
    return `top-level keys ${Object.keys(outer ?? {}).join(",")}`;
  if (dialect === "anthropic" && outer.type !== "error") return 'type is not "error"';
  if (typeof error !== "object" || error === null) return "error is not an object";
  // A refused catalogue file's error alone adds its problems (docs/errors.md, "A refused catalogue file").
  const keys = Object.keys(error).filter((key) => key !== "problems" || dialect === "anthropic");
  // OpenAI's errors always carry `param` (null, or the field at fault); Anthropic's have none.
  const expectedKeys = dialect === "anthropic" ? "code,message,type" : "code,message,param,type";
  if (keys.sort().join() !== expectedKeys) return `error keys ${Object.keys(error).join(",")}`;
  if (dialect === "openai" && error.param !== null && !isText(error.param)) return "param neither null nor a field name";
  if ("problems" in error) {
    const problems = error.problems;
    if (!Array.isArray(problems) || problems.length === 0) return "problems is not a list of problems";
    for (const problem of problems as Record<string, unknown>[]) {
      if (
        Object.keys(problem ?? {})
          .sort()
          .join() !== "message,model,pointer"
      )
        return `problem keys ${Object.keys(problem ?? {}).join(",")}`;
      if (typeof problem.pointer !== "string" || !isText(problem.message) || !(problem.model === null || isText(problem.model)))
        return "problem fields of the wrong type";
      if ((problem.message as string).length > 1_000 || problem.pointer.length > 1_000) return "a problem of more than 1,000 characters";
    }
  }
  if (!isText(error.type) || !isText(error.message) || !isCode(error.code)) return "error fields of the wrong type";
  // Quoted input is cut to 200 characters (proto/src/echo.ts): no message grows with the request.
  if ((error.message as string).length > 1_000) return `a message of ${(error.message as string).length} characters`;
  return undefined;
}
