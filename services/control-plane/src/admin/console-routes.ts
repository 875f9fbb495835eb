// The operator console's static files (services/console, built into its dist/ folder) at /console on
// the admin port: same origin as the admin API, so no CORS. The files hold no data and need no token;
// every call they make to /admin still does. Hidden from the OpenAPI document: they are not the API.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";

export const CONSOLE_PATH = "/console";

/** Where `pnpm build:console` writes; the control plane's image holds the build at the same place. */
export const DEFAULT_CONSOLE_DIR = path.resolve(import.meta.dirname, "../../../console/dist");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
};

// Scripts and styles from this origin only (the console has no inline script); no framing.
const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

interface StaticFile {
  type: string;
  body: Buffer;
}

/** Every file of the build by its URL path, read once: only these are served, so no path can reach outside it. */
function readBuild(dir: string): Map<string, StaticFile> | undefined {
  if (!statSync(path.join(dir, "index.html"), { throwIfNoEntry: false })?.isFile()) return undefined;
  const files = new Map<string, StaticFile>();
  for (const relative of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, relative);
    if (!statSync(file).isFile()) continue;
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    files.set(`/${relative.split(path.sep).join("/")}`, { type, body: readFileSync(file) });
  }
  return files;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1><p>Run <code>pnpm build:console</code> (services/console) and restart the control plane.</p></body></html>
`;

export function registerConsoleRoutes(app: FastifyInstance, dir = DEFAULT_CONSOLE_DIR): void {
  // Read at the first request, not at start: the OpenAPI generator builds this app without a console.
  let build: Map<string, StaticFile> | undefined;
  const send = (reply: FastifyReply, file: StaticFile, cache: string) =>
    reply
      .headers({ ...SECURITY_HEADERS, "cache-control": cache })
      .type(file.type)
      .send(file.body);

  app.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 302));
  app.get(`${CONSOLE_PATH}/*`, { schema: { hide: true } }, async (request, reply) => {
    build ??= readBuild(dir);
    if (!build) return reply.code(503).headers(SECURITY_HEADERS).type("text/html; charset=utf-8").send(NOT_BUILT);
    const wanted = `/${(request.params as { "*": string })["*"]}`;
    const file = build.get(wanted);
    // Hashed asset names change with their content: cached for good; the page itself always revalidated.
    if (file) return send(reply, file, wanted.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
    // A page's own address (/console/keys) is the app, which routes in the browser; a missing asset is a 404.
    if (wanted.startsWith("/assets/")) return reply.code(404).type("text/plain").send("no such file");
    return send(reply, build.get("/index.html")!, "no-cache");
  });
}
