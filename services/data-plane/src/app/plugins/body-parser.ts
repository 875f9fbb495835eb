// Bodies are read and parsed only where a route takes one (the model calls, after their auth): there,
// JSON whatever the declared type, and a body that is not JSON, or nests deeper than any API's body
// does, is a 400 in the route's dialect. Everywhere else (an unknown route, /health, a route that takes
// no body) the answer goes out without the body being parsed: parsing a 10 MiB body nobody asked for
// held the event loop for seconds (issue 33).
import { invalidRequest } from "../../errors";
import { globalPlugin } from "./global-plugin";
import { nestsDeeperThan } from "./nesting-depth";

/** Deeper than any OpenAI or Anthropic body needs (a JSON schema in a tool nests a few tens of levels at most). */
export const MAX_BODY_DEPTH = 64;

/** A model call's body: undefined when empty, else its JSON; throws the 400 of a body that is not JSON or nests too deep. */
export function parseBody(text: string): unknown {
  if (text === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest("invalid_body", "The request body is not valid JSON.");
  }
  if (nestsDeeperThan(parsed, MAX_BODY_DEPTH))
    throw invalidRequest("invalid_body", `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
  return parsed;
}

/** For the scope of the routes that take a body (the front door reads its own: app/front-door.ts). */
export const bodyParser = globalPlugin(async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseBody(body as string);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, parsed);
  });
});

/**
 * For every other route (the app's root, and so its 404s): the body is left unread, and the answer goes
 * out at once. Node's server then reads what is left off the wire and drops it (its "dump": no stream
 * event per chunk), so the connection stays usable and a client still sending gets the answer, not a
 * reset; a body that never ends is cut by the request timeout (DATA_PLANE_REQUEST_TIMEOUT_MS).
 */
export const bodyUnread = globalPlugin(async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
});
