// A seeded corpus of hostile requests over every public and admin route: well-formed bodies with one
// to three fields given a wrong type, a huge number, deep nesting, a huge string, NUL or odd unicode,
// fields missing, bodies that are not JSON, wrong content types, wrong or missing credentials, wrong
// methods and broken paths. The same seed gives the same corpus (fuzz-corpus.test.ts).
import type { RawRequest } from "./raw-http";

export type Plane = "data" | "admin";

export interface FuzzRequest extends RawRequest {
  plane: Plane;
  /** The error shape an answer must have: Anthropic's on POST /v1/messages(/count_tokens). */
  dialect: "openai" | "anthropic";
  /** The route the request was built from (its method and path template), whatever was broken in it. */
  route: string;
  label: string;
}

export interface FuzzCredentials {
  key: string;
  adminToken: string;
  /** The admin routes' target project and key (never the one the data-plane requests use). */
  projectId: string;
  keyId: string;
}

/** mulberry32: small, seeded, good enough to spread the cases. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Placeholders a value can take, replaced in the JSON text (a 50,000-deep literal cannot go through JSON.stringify). */
const DEEP = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const RAW_VALUES: Record<string, string> = {
  __deep80__: DEEP(80),
  __deep50000__: DEEP(50_000),
  __deepobject__: `${'{"a":'.repeat(100)}1${"}".repeat(100)}`,
  __huge_number__: "1e400",
  __proto__: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
};

const WRONG_VALUES: unknown[] = [
  "yes",
  "",
  5,
  -1,
  0,
  1e308,
  -1e308,
  0.5,
  Number.MAX_SAFE_INTEGER + 2,
  "1e308",
  "NaN",
  "Infinity",
  "-1",
  true,
  false,
  null,
  [],
  {},
  [1, "two", null],
  { nested: { deeper: [1, 2, 3] } },
  "a\u0000b",
  "\u0000",
  "😀 \u202e ⁄ \ud800 \ufeff",
  "x".repeat(100_000),
  Array.from({ length: 5_000 }, (_, index) => index),
  "__deep80__",
  "__deep50000__",
  "__deepobject__",
  "__huge_number__",
  "__proto__",
];

const MODELS: unknown[] = [
  "auto",
  "auto:economy",
  "auto:nonsense",
  "openai/gpt-4.1-mini",
  "anthropic/claude-sonnet-4",
  "gpt-4.1-mini",
  "openai/text-embedding-3-small",
  "no/such-model",
  "openai/",
  "m".repeat(1024 * 1024),
  "mod\u0000el",
  "../../admin",
  5,
];

const MESSAGES = [{ role: "user", content: "fuzz" }];

interface DataRoute {
  path: string;
  base: () => Record<string, unknown>;
  fields: string[];
}

const DATA_ROUTES: DataRoute[] = [
  {
    path: "/v1/chat/completions",
    base: () => ({ model: "openai/gpt-4.1-mini", messages: MESSAGES, max_tokens: 16 }),
    fields: [
      "model",
      "messages",
      "messages.0",
      "messages.0.content",
      "messages.0.role",
      "stream",
      "stream_options",
      "n",
      "max_tokens",
      "max_completion_tokens",
      "temperature",
      "top_p",
      "seed",
      "logprobs",
      "top_logprobs",
      "logit_bias",
      "tools",
      "tools.0",
      "tool_choice",
      "response_format",
      "stop",
      "modalities",
      "metadata",
      "user",
      "service",
      "service.tier",
      "service.allow",
      "service.route",
    ],
  },
  {
    path: "/v1/responses",
    base: () => ({ model: "openai/gpt-4.1-mini", input: "fuzz", max_output_tokens: 16 }),
    fields: [
      "model",
      "input",
      "input.0",
      "input.0.content",
      "instructions",
      "stream",
      "store",
      "background",
      "max_output_tokens",
      "temperature",
      "top_p",
      "tools",
      "tools.0",
      "tool_choice",
      "text",
      "text.format",
      "reasoning",
      "metadata",
      "include",
      "previous_response_id",
      "conversation",
      "prompt",
      "service",
    ],
  },
  {
    path: "/v1/messages",
    base: () => ({ model: "openai/gpt-4.1-mini", max_tokens: 16, messages: MESSAGES }),
    fields: [
      "model",
      "messages",
      "messages.0",
      "messages.0.content",
      "messages.0.role",
      "max_tokens",
      "system",
      "stream",
      "stop_sequences",
      "temperature",
      "top_p",
      "top_k",
      "tools",
      "tools.0",
      "tool_choice",
      "metadata",
      "thinking",
      "output_config",
      "service",
    ],
  },
  {
    path: "/v1/messages/count_tokens",
    base: () => ({ model: "openai/gpt-4.1-mini", messages: MESSAGES }),
    fields: ["model", "messages", "messages.0.content", "system", "tools", "tool_choice", "thinking", "max_tokens", "stream"],
  },
  {
    path: "/v1/embeddings",
    base: () => ({ model: "openai/text-embedding-3-small", input: "fuzz" }),
    fields: ["model", "input", "input.0", "dimensions", "encoding_format", "user"],
  },
];

interface AdminRoute {
  method: string;
  name: string;
  path: (ids: FuzzCredentials, pick: <T>(items: readonly T[]) => T) => string;
  base?: () => Record<string, unknown>;
  fields?: string[];
}

/** Numbers the top-ups' idempotency keys: each a new top-up, the same keys for the same seed. */
let topUps = 0;

const ADMIN_ROUTES: AdminRoute[] = [
  { method: "GET", name: "GET /health", path: () => "/health" },
  { method: "GET", name: "GET /admin/projects", path: () => "/admin/projects" },
  {
    method: "POST",
    name: "POST /admin/projects",
    path: () => "/admin/projects",
    base: () => ({ name: "fuzz project" }),
    fields: ["id", "name"],
  },
  { method: "GET", name: "GET /admin/projects/:projectId", path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}` },
  {
    method: "PATCH",
    name: "PATCH /admin/projects/:projectId/limits",
    path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}/limits`,
    base: () => ({ rpm_limit: 100_000, daily_cap_usd: null }),
    fields: ["rpm_limit", "daily_cap_usd"],
  },
  {
    method: "POST",
    name: "POST /admin/projects/:projectId/keys",
    path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}/keys`,
    base: () => ({ name: "fuzz key" }),
    fields: ["name"],
  },
  { method: "GET", name: "GET /admin/projects/:projectId/keys", path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}/keys` },
  {
    method: "POST",
    name: "POST /admin/keys/:keyId/revoke",
    path: (ids, pick) => `/admin/keys/${pick([ids.keyId, "nosuch", "%00", "k".repeat(300), "%E0%A4%A"])}/revoke`,
  },
  {
    method: "POST",
    name: "POST /admin/projects/:projectId/topups",
    path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}/topups`,
    base: () => ({ amount_usd: "0.01", idempotency_key: `fuzz-${topUps++}` }),
    fields: ["amount_usd", "idempotency_key"],
  },
  {
    method: "GET",
    name: "GET /admin/projects/:projectId/balance",
    path: (ids, pick) => `/admin/projects/${projectIdIn(ids, pick)}/balance`,
  },
  {
    method: "GET",
    name: "GET /admin/projects/:projectId/ledger",
    path: (ids, pick) =>
      `/admin/projects/${projectIdIn(ids, pick)}/ledger${pick(["", "?limit=5", "?limit=-1", "?limit=1e308", "?limit=x", "?limit=%00"])}`,
  },
  {
    method: "GET",
    name: "GET /admin/projects/:projectId/holds",
    path: (ids, pick) =>
      `/admin/projects/${projectIdIn(ids, pick)}/holds${pick(["", "?status=active", "?status=nope", "?limit=0", "?status=%00&limit=99999999"])}`,
  },
  {
    method: "GET",
    name: "GET /admin/projects/:projectId/usage",
    path: (ids, pick) =>
      `/admin/projects/${projectIdIn(ids, pick)}/usage${pick(["", "?from=2026-01-01", "?from=yesterday", "?to=9999-99-99", "?from=%00"])}`,
  },
  { method: "GET", name: "GET /admin/catalogue", path: () => "/admin/catalogue" },
  {
    method: "GET",
    name: "GET /admin/catalogue/models",
    path: (_ids, pick) =>
      `/admin/catalogue/models${pick(["", "?curated=true", "?curated=maybe", "?q=llama%203.1", "?q=%00", "?limit=0", "?limit=1e308&offset=-1", `?q=${"x".repeat(300)}`])}`,
  },
  // Only bodies that cannot be a catalogue: the stack's own catalogue must keep serving the data plane.
  {
    method: "PUT",
    name: "PUT /admin/catalogue",
    path: (_ids, pick) =>
      pick(["/admin/catalogue?source=fuzz", "/admin/catalogue?source=fuzz&dry_run=true", "/admin/catalogue?dry_run=maybe"]),
    base: () => ({ models: "none", defaults: 5 }),
    fields: ["models", "defaults", "version"],
  },
];

const projectIdIn = (ids: FuzzCredentials, pick: <T>(items: readonly T[]) => T) =>
  pick([ids.projectId, ids.projectId, "nosuch", "%00", "p%00q", "p".repeat(300), "%E0%A4%A", "%F0%9F%98%80", "..%2F..%2Fhealth"]);

/** The data plane's routes other than the model calls, each with broken spellings of its path; then paths no route has. */
const OTHER_DATA_ROUTES: { name: string; method: string; paths: string[] }[] = [
  { name: "GET /v1/models", method: "GET", paths: ["/v1/models", "/v1/models?all=1", "/v1/models?all=%zz", "/v1/models?all=1&all=%00"] },
  {
    name: "GET /v1/models/{id}",
    method: "GET",
    paths: ["openai/gpt-4.1-mini", "openai%2Fgpt-4.1-mini", "auto", "gpt", "%00", "x".repeat(5_000), "%E0%A4%A", "%F0%9F%98%80"].map(
      (model) => `/v1/models/${model}`,
    ),
  },
  ...["GET", "DELETE"].map((method) => ({
    name: `${method} /v1/responses/{id}`,
    method,
    paths: ["resp_1", "r".repeat(300), "%00", "%E0%A4%A", "a%2Fb"].map((response) => `/v1/responses/${response}`),
  })),
  {
    name: "GET /v1/responses/{id}/input_items",
    method: "GET",
    paths: ["/v1/responses/resp_1/input_items", `/v1/responses/${"r".repeat(300)}/input_items`],
  },
  { name: "POST /v1/responses/{id}/cancel", method: "POST", paths: ["/v1/responses/resp_1/cancel", "/v1/responses/%00/cancel"] },
  { name: "GET /health", method: "GET", paths: ["/health", "/health?verbose=%00"] },
  {
    name: "no route",
    method: "GET",
    paths: [
      "/v1",
      "/v1/",
      "//v1//chat//completions",
      "/v1/chat/completions/extra",
      "/V1/CHAT/COMPLETIONS",
      "/%",
      "/v1/%E0%A4%A",
      `/${"a".repeat(20_000)}`,
      "/v1/chat/completions?stream=true&%zz",
      // Metrics are served on their own port (METRICS_PORT), not this one.
      "/metrics",
      "/metrics?name[]=x",
    ],
  },
];

const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz",
  "application/json; charset=utf-16",
  "application/octet-stream",
  "",
];

const BAD_BODIES: (string | Buffer)[] = [
  "{",
  '{"model":',
  "nul",
  "[1,2",
  "{}garbage",
  "",
  "null",
  "[]",
  '"just a string"',
  "42",
  '{"n": NaN}',
  '{"max_tokens": 1e400, "n": 1e400}',
  '{"model":"auto","model":5}',
  Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
  "\u0000",
  `{"model":"auto","messages":${DEEP(50_000)}}`,
];

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "HEAD", "PROPFIND", "SEARCH"];

/** Sets `path` (dot-separated, array indexes as numbers) in `target`, creating objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let node = target as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== "object" || next === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

function deletePath(target: Record<string, unknown>, path: string): void {
  const parts = path.split(".");
  let node: unknown = target;
  for (const part of parts.slice(0, -1)) node = (node as Record<string, unknown> | undefined)?.[part];
  if (typeof node === "object" && node !== null) delete (node as Record<string, unknown>)[parts.at(-1)!];
}

function serialize(body: Record<string, unknown>): string {
  let text = JSON.stringify(body);
  for (const [placeholder, raw] of Object.entries(RAW_VALUES)) text = text.replaceAll(JSON.stringify(placeholder), raw);
  return text;
}

/** Every admin route the control plane registers (admin-app.ts, project-routes.ts, catalogue-routes.ts). */
export const ADMIN_ROUTE_NAMES = ADMIN_ROUTES.map((route) => route.name);

export function buildCorpus(seed: number, size: { data: number; admin: number }, ids: FuzzCredentials): FuzzRequest[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  // structuredClone keeps the placeholders; deep copies keep one case from touching another's base.
  const mutate = (body: Record<string, unknown>, fields: string[]): string => {
    for (let count = 1 + Math.floor(random() * 3); count > 0; count--) {
      const field = pick(fields);
      if (chance(0.15)) deletePath(body, field);
      else if (field === "model" && chance(0.5)) setPath(body, field, pick(MODELS));
      else setPath(body, field, structuredClone(pick(WRONG_VALUES)));
    }
    if (chance(0.1)) body[`unknown_${Math.floor(random() * 100)}`] = pick(WRONG_VALUES);
    return serialize(body);
  };

  const corpus: FuzzRequest[] = [];
  const authorizations = [
    `Bearer ${ids.key}`,
    "",
    "Bearer ",
    "Bearer sk_nosuch_0000000000000000000000000000",
    "Bearer not-a-key",
    "Basic Zm9vOmJhcg==",
    "Bearer sk_\u00e9",
  ];
  for (let index = 0; index < size.data; index++) {
    const route = pick(DATA_ROUTES);
    const headers: Record<string, string> = {};
    const authorization = chance(0.85) ? authorizations[0]! : pick(authorizations);
    if (authorization) headers.authorization = authorization;
    let method = "POST";
    let path = route.path;
    let body: string | Buffer | undefined;
    let label = "mutated body";
    let routeName = `POST ${route.path}`;
    const roll = random();
    if (roll < 0.55) {
      body = mutate(route.base(), route.fields);
    } else if (roll < 0.62) {
      body = pick(BAD_BODIES);
      label = "not a JSON object";
    } else if (roll < 0.68) {
      body = serialize(route.base());
      headers["content-type"] = pick(CONTENT_TYPES);
      label = "content type";
    } else if (roll < 0.74) {
      method = pick(METHODS);
      body = method === "GET" || method === "HEAD" ? undefined : serialize(route.base());
      label = "method";
    } else if (roll < 0.88) {
      // One of the other routes (or none), mostly with its own method.
      const other = pick(OTHER_DATA_ROUTES);
      method = chance(0.8) ? other.method : pick(METHODS);
      path = pick(other.paths);
      body = method === "GET" || method === "HEAD" ? undefined : serialize(route.base());
      routeName = other.name;
      label = "path";
    } else if (roll < 0.9) {
      // Just over the limit the stack runs with (1 MiB): the 413 must arrive, not a broken connection.
      body = serialize({ ...route.base(), padding: "p".repeat(1024 * 1024 + 100) });
      label = "over the body limit";
    } else {
      const valid = route.base();
      if (chance(0.5)) valid.stream = true;
      body = serialize(valid);
      label = "well-formed";
    }
    // Over Node's 16 KiB of headers: 431, answered before any route, so in the table's own (OpenAI) shape on every path.
    const oversizedHeaders = chance(0.02);
    if (oversizedHeaders) headers["x-fuzz"] = "h".repeat(20_000);
    if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
    if (headers["content-type"] === "") delete headers["content-type"];
    const messagesRoute = method === "POST" && (path === "/v1/messages" || path === "/v1/messages/count_tokens");
    const dialect = messagesRoute && !oversizedHeaders ? "anthropic" : "openai";
    corpus.push({ plane: "data", method, path, headers, body, dialect, route: routeName, label: `${label}: ${method} ${routeName}` });
  }

  const tokens = [`Bearer ${ids.adminToken}`, "", "Bearer wrong", `bearer ${ids.adminToken}`];
  for (let index = 0; index < size.admin; index++) {
    const route = pick(ADMIN_ROUTES);
    const headers: Record<string, string> = {};
    const token = chance(0.8) ? tokens[0]! : pick(tokens);
    if (token) headers.authorization = token;
    let method = route.method;
    const path = route.path(ids, pick);
    let body: string | Buffer | undefined;
    let label = "as defined";
    const roll = random();
    if (route.base && roll < 0.65) {
      body = mutate(route.base(), route.fields!);
      label = "mutated body";
    } else if (roll < 0.75) {
      body = pick(BAD_BODIES);
      headers["content-type"] = pick(CONTENT_TYPES);
      label = "not a JSON object";
    } else if (roll < 0.85) {
      method = pick(METHODS);
      body = route.base ? serialize(route.base()) : undefined;
      label = "method";
    } else if (roll < 0.87) {
      body = serialize({ name: "n".repeat(1024 * 1024 + 100) });
      label = "over the body limit";
    } else if (route.base) {
      body = serialize(route.base());
    }
    if (chance(0.02)) headers["x-fuzz"] = "h".repeat(20_000);
    if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
    if (headers["content-type"] === "") delete headers["content-type"];
    corpus.push({ plane: "admin", method, path, headers, body, dialect: "openai", route: route.name, label: `${label}: ${route.name}` });
  }
  return corpus;
}
