// Bodies are JSON whatever the declared type; a body that is not JSON, or nests
// deeper than any API's body does, is a 400 in the route's dialect.
import { invalidRequest } from "../../errors";
import { globalPlugin } from "./global-plugin";
import { nestsDeeperThan } from "./nesting-depth";

/** Deeper than any OpenAI or Anthropic body needs (a JSON schema in a tool nests a few tens of levels at most). */
export const MAX_BODY_DEPTH = 64;

export const bodyParser = globalPlugin(async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    if (body === "") return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch {
      return done(invalidRequest("invalid_body", "The request body is not valid JSON."), undefined);
    }
    if (nestsDeeperThan(parsed, MAX_BODY_DEPTH))
      return done(invalidRequest("invalid_body", `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`), undefined);
    done(null, parsed);
  });
});
