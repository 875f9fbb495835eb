// Bodies are JSON whatever the declared type; a body that is not JSON is a 400
// in the OpenAI shape.
import { invalidRequest } from "../../errors";
import { globalPlugin } from "./global-plugin";

export const bodyParser = globalPlugin(async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    if (body === "") return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(invalidRequest("invalid_body", "The request body is not valid JSON."), undefined);
    }
  });
});
