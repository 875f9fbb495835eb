import { describe, expect, it } from "vitest";
import { ConfigError, parseDataPlaneConfig } from "../../src/config";

// A short token, as in development: the strength rule has its own tests below.
const base = { GATEWAY_INTERNAL_TOKEN: "internal-secret", GATEWAY_ALLOW_WEAK_TOKENS: "true" };
const parse = (env: Record<string, string | undefined>) => parseDataPlaneConfig({ ...base, ...env });

describe("parseDataPlaneConfig basics", () => {
  it("requires GATEWAY_INTERNAL_TOKEN", () => {
    expect(() => parseDataPlaneConfig({})).toThrow(new ConfigError("GATEWAY_INTERNAL_TOKEN is required"));
  });

  it("rejects an empty GATEWAY_INTERNAL_TOKEN", () => {
    expect(() => parseDataPlaneConfig({ GATEWAY_INTERNAL_TOKEN: "" })).toThrow(ConfigError);
  });

  it("connects to the control plane without TLS unless CONTROL_PLANE_TLS_CA_FILE is set; mutual TLS with a certificate and key", () => {
    expect(parse({})).toMatchObject({ controlPlaneTls: undefined, tlsReloadIntervalMs: 60_000 });
    expect(parse({ CONTROL_PLANE_TLS_CA_FILE: "/tls/ca.crt", TLS_RELOAD_INTERVAL_MS: "1000" })).toMatchObject({
      controlPlaneTls: { caFile: "/tls/ca.crt", certificateFile: undefined, privateKeyFile: undefined },
      tlsReloadIntervalMs: 1000,
    });
    expect(
      parse({
        CONTROL_PLANE_TLS_CA_FILE: "/tls/ca.crt",
        CONTROL_PLANE_TLS_CERT_FILE: "/tls/dp.crt",
        CONTROL_PLANE_TLS_KEY_FILE: "/tls/dp.key",
      }).controlPlaneTls,
    ).toEqual({ caFile: "/tls/ca.crt", certificateFile: "/tls/dp.crt", privateKeyFile: "/tls/dp.key" });
    expect(() => parse({ CONTROL_PLANE_TLS_CA_FILE: "/tls/ca.crt", CONTROL_PLANE_TLS_CERT_FILE: "/tls/dp.crt" })).toThrow(
      new ConfigError("CONTROL_PLANE_TLS_CERT_FILE and CONTROL_PLANE_TLS_KEY_FILE go together: set both or neither"),
    );
    expect(() => parse({ CONTROL_PLANE_TLS_CERT_FILE: "/tls/dp.crt", CONTROL_PLANE_TLS_KEY_FILE: "/tls/dp.key" })).toThrow(
      new ConfigError("CONTROL_PLANE_TLS_CERT_FILE needs CONTROL_PLANE_TLS_CA_FILE (the CA of the control plane's certificate)"),
    );
  });

  it("refuses a GATEWAY_INTERNAL_TOKEN under 32 characters unless GATEWAY_ALLOW_WEAK_TOKENS=true, and the placeholder always", () => {
    const strong = "k".repeat(32);
    expect(parseDataPlaneConfig({ GATEWAY_INTERNAL_TOKEN: strong }).internalToken).toBe(strong);
    expect(() => parseDataPlaneConfig({ GATEWAY_INTERNAL_TOKEN: "x" })).toThrow(
      new ConfigError(
        "GATEWAY_INTERNAL_TOKEN is too short (1 of at least 32 characters). Make one with `openssl rand -base64 32 | tr '+/' '-_'`" +
          " (a development setup may set GATEWAY_ALLOW_WEAK_TOKENS=true instead).",
      ),
    );
    expect(parseDataPlaneConfig({ GATEWAY_INTERNAL_TOKEN: "x", GATEWAY_ALLOW_WEAK_TOKENS: "true" }).internalToken).toBe("x");
    for (const allow of ["false", "true"])
      expect(() =>
        parseDataPlaneConfig({ GATEWAY_INTERNAL_TOKEN: `REPLACE_ME-internal-token-${strong}`, GATEWAY_ALLOW_WEAK_TOKENS: allow }),
      ).toThrow(/GATEWAY_INTERNAL_TOKEN is still the deploy files' placeholder/);
    expect(() => parse({ GATEWAY_ALLOW_WEAK_TOKENS: "yes" })).toThrow(/GATEWAY_ALLOW_WEAK_TOKENS must be true or false/);
  });

  // toMatchObject (exact values, but only these fields) because other fields are being added to the config.
  it("applies the defaults", () => {
    const config = parse({ DATA_PLANE_REPLICA_ID: "r1" });
    expect({ ...config, providers: [...config.providers.values()], credentials: [...config.credentials] }).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      controlPlaneAddress: "127.0.0.1:50051",
      internalToken: "internal-secret",
      bodyLimitBytes: 10 * 1024 * 1024,
      requestTimeouts: { headersMs: 30_000, requestMs: 300_000 },
      keyCacheTtlSeconds: 30,
      controlPlaneGraceMs: 300_000,
      controlPlaneDeadlineMs: 5000,
      providers: [
        { name: "openai", baseUrl: "https://api.openai.com/v1", protocol: "openai-compatible", extraFields: [], responsesApi: true },
      ],
      credentials: [],
      upstream: { connectTimeoutMs: 10_000, headersTimeoutMs: 300_000, streamIdleTimeoutMs: 60_000 },
      logLevel: "info",
      replicaId: "r1",
    });
  });

  it("defaults the replica id to one naming the process", () => {
    expect(parse({}).replicaId).toBe(`data-plane-${process.pid}`);
  });
});

describe("providers", () => {
  it("lets OPENAI_BASE_URL override the default", () => {
    expect(parse({ OPENAI_BASE_URL: "http://127.0.0.1:9000/v1" }).providers.get("openai")).toMatchObject({
      name: "openai",
      baseUrl: "http://127.0.0.1:9000/v1",
    });
  });

  it("keeps the default when OPENAI_BASE_URL is empty", () => {
    expect(parse({ OPENAI_BASE_URL: "" }).providers.get("openai")).toMatchObject({ name: "openai", baseUrl: "https://api.openai.com/v1" });
  });

  it.each<[string, string, string]>([
    ["MY_VENDOR_BASE_URL", "my-vendor", "https://vendor.example/v1"],
    ["GROQ_BASE_URL", "groq", "https://api.groq.com/openai/v1"],
    ["MOCK2_BASE_URL", "mock2", "http://localhost:4000/v1"],
  ])("%s -> provider %s", (variable, name, url) => {
    expect(parse({ [variable]: url }).providers.get(name)).toEqual({
      name,
      baseUrl: url,
      protocol: "openai-compatible",
      extraFields: [],
      responsesApi: false,
    });
  });

  it.each<[string, string]>([
    ["http://x/v1/", "http://x/v1"],
    ["http://x/v1///", "http://x/v1"],
    ["http://x/", "http://x"],
  ])("removes trailing slashes from %s", (url, expected) => {
    expect(parse({ MY_VENDOR_BASE_URL: url }).providers.get("my-vendor")!.baseUrl).toBe(expected);
  });

  it("ignores lower-case variable names", () => {
    expect([...parse({ my_vendor_BASE_URL: "http://x/v1" }).providers.keys()]).toEqual(["openai"]);
  });

  it.each(["not a url", "/v1", "localhost"])("throws ConfigError for invalid URL %j", (url) => {
    expect(() => parse({ MY_VENDOR_BASE_URL: url })).toThrow(new ConfigError(`MY_VENDOR_BASE_URL is not a URL: "${url}"`));
  });
});

describe("provider protocols", () => {
  it("registers a well-known provider once its key is set, with its protocol and base URL", () => {
    const providers = parse({ ANTHROPIC_API_KEY: "k", GOOGLE_API_KEY: "g", OPENROUTER_API_KEY: "o" }).providers;
    expect(providers.get("anthropic")).toEqual({
      name: "anthropic",
      baseUrl: "https://api.anthropic.com/v1",
      protocol: "anthropic",
      extraFields: [],
      responsesApi: false,
    });
    expect(providers.get("google")).toMatchObject({ baseUrl: "https://generativelanguage.googleapis.com/v1beta", protocol: "gemini" });
    expect(providers.get("openrouter")).toMatchObject({ baseUrl: "https://openrouter.ai/api/v1", protocol: "openai-compatible" });
    expect(providers.get("openrouter")!.extraFields).toEqual(
      expect.arrayContaining(["top_k", "reasoning", "provider", "transforms", "usage"]),
    );
  });

  it("does not register a well-known provider that has neither key nor base URL", () => {
    expect([...parse({}).providers.keys()]).toEqual(["openai"]);
  });

  it("takes <NAME>_PROTOCOL and <NAME>_EXTRA_FIELDS", () => {
    const vendor = parse({
      MY_VENDOR_BASE_URL: "http://x/v1",
      MY_VENDOR_PROTOCOL: "anthropic",
      MY_VENDOR_EXTRA_FIELDS: "top_k, min_p,,",
    }).providers.get("my-vendor");
    expect(vendor).toEqual({
      name: "my-vendor",
      baseUrl: "http://x/v1",
      protocol: "anthropic",
      extraFields: ["top_k", "min_p"],
      responsesApi: false,
    });
    expect(parse({ OPENROUTER_BASE_URL: "http://x/v1", OPENROUTER_EXTRA_FIELDS: "" }).providers.get("openrouter")!.extraFields).toEqual([]);
  });

  it("serves Responses clients natively on openai only, unless <NAME>_RESPONSES_API says otherwise", () => {
    const providers = parse({ OPENROUTER_API_KEY: "k", GROQ_BASE_URL: "https://api.groq.com/openai/v1" }).providers;
    expect(providers.get("openai")!.responsesApi).toBe(true);
    expect(providers.get("openrouter")!.responsesApi).toBe(false);
    expect(providers.get("groq")!.responsesApi).toBe(false);
    expect(parse({ OPENAI_RESPONSES_API: "false" }).providers.get("openai")!.responsesApi).toBe(false);
    expect(parse({ OPENAI_RESPONSES_API: "" }).providers.get("openai")!.responsesApi).toBe(true);
    expect(parse({ MY_VENDOR_BASE_URL: "http://x/v1", MY_VENDOR_RESPONSES_API: "TRUE" }).providers.get("my-vendor")!.responsesApi).toBe(
      true,
    );
  });

  it("rejects a <NAME>_RESPONSES_API that is not true or false", () => {
    expect(() => parse({ OPENAI_RESPONSES_API: "yes" })).toThrow(new ConfigError('OPENAI_RESPONSES_API must be true or false, got "yes"'));
  });

  it("rejects an unknown protocol", () => {
    expect(() => parse({ MY_VENDOR_BASE_URL: "http://x/v1", MY_VENDOR_PROTOCOL: "soap" })).toThrow(ConfigError);
  });
});

describe("credentials", () => {
  it("collects non-empty *_API_KEY variables by variable name, each a pool of one key", () => {
    const config = parse({ OPENAI_API_KEY: "sk-1", MY_VENDOR_API_KEY: "k2", EMPTY_API_KEY: "", API_KEY: "bare", lower_API_KEY: "x" });
    const keys = Object.fromEntries([...config.credentials].map(([variable, pool]) => [variable, pool.keys.map((entry) => entry.key)]));
    expect(keys).toEqual({ OPENAI_API_KEY: ["sk-1"], MY_VENDOR_API_KEY: ["k2"] });
  });

  it("takes a pool from <NAME>_API_KEYS under the singular variable's name, and registers a well-known provider by it", () => {
    const config = parse({ ANTHROPIC_API_KEYS: "sk-a;weight=3,sk-b" });
    const pool = config.credentials.get("ANTHROPIC_API_KEY")!;
    expect([pool.source, pool.keys.map((entry) => [entry.key, entry.weight])]).toEqual([
      "ANTHROPIC_API_KEYS",
      [
        ["sk-a", 3],
        ["sk-b", 1],
      ],
    ]);
    expect(config.providers.has("anthropic")).toBe(true);
    expect(config.keyPool).toEqual({ cooldownMs: 10_000, refusalMs: 600_000 });
  });

  it("refuses two forms of one pool, and a pool for a cloud's single key, without echoing a key", () => {
    expect(() => parse({ OPENAI_API_KEY: "sk-secret-1", OPENAI_API_KEYS: "sk-secret-2" })).toThrow(
      new ConfigError("OPENAI_API_KEY and OPENAI_API_KEYS are set: they configure one pool of keys, set only one of them"),
    );
    expect(() => parse({ AZURE_RESOURCE: "r", AZURE_API_KEYS: "sk-secret-1,sk-secret-2" })).toThrow(
      new ConfigError("AZURE_API_KEYS: azure is a cloud provider and authenticates with one key (AZURE_API_KEY), not a pool"),
    );
  });
});

describe("integers", () => {
  it.each<[string, number]>([
    ["5", 5],
    ["30", 30],
    ["31", 30],
    ["3600", 30],
    ["1", 1],
  ])("KEY_CACHE_TTL_SECONDS=%s -> %d (capped at 30)", (raw, expected) => {
    expect(parse({ KEY_CACHE_TTL_SECONDS: raw }).keyCacheTtlSeconds).toBe(expected);
  });

  it.each<[string, string]>([
    ["KEY_CACHE_TTL_SECONDS", "0"],
    ["KEY_CACHE_TTL_SECONDS", "abc"],
    ["DATA_PLANE_PORT", "-1"],
    ["DATA_PLANE_PORT", "80.5"],
    ["DATA_PLANE_PORT", "eighty"],
    ["BODY_LIMIT_BYTES", "1023"],
    ["CONTROL_PLANE_DEADLINE_MS", "9"],
    ["STREAM_IDLE_TIMEOUT_MS", "0"],
    ["UPSTREAM_CONNECT_TIMEOUT_MS", "NaN"],
  ])("%s=%s throws ConfigError", (name, raw) => {
    expect(() => parse({ [name]: raw })).toThrow(ConfigError);
  });

  it("names the variable and the value in the message", () => {
    expect(() => parse({ DATA_PLANE_PORT: "x" })).toThrow('DATA_PLANE_PORT must be an integer >= 0, got "x"');
  });

  it.each<[string, string, (config: ReturnType<typeof parse>) => number, number]>([
    ["DATA_PLANE_PORT", "9090", (config) => config.port, 9090],
    ["DATA_PLANE_PORT", "", (config) => config.port, 8080],
    ["BODY_LIMIT_BYTES", "1024", (config) => config.bodyLimitBytes, 1024],
    ["CONTROL_PLANE_GRACE_MS", "0", (config) => config.controlPlaneGraceMs, 0],
    ["CONTROL_PLANE_DEADLINE_MS", "10", (config) => config.controlPlaneDeadlineMs, 10],
    ["UPSTREAM_HEADERS_TIMEOUT_MS", "1000", (config) => config.upstream.headersTimeoutMs, 1000],
    ["STREAM_IDLE_TIMEOUT_MS", "1", (config) => config.upstream.streamIdleTimeoutMs, 1],
    ["UPSTREAM_MAX_BODY_BYTES", "1048576", (config) => config.upstream.maxBodyBytes, 1048576],
    ["UPSTREAM_MAX_BODY_BYTES", "", (config) => config.upstream.maxBodyBytes, 16 * 1024 * 1024],
    ["UPSTREAM_MAX_CONNECTIONS", "", (config) => config.upstream.maxConnections, 0],
    ["DATA_PLANE_MAX_IN_FLIGHT", "", (config) => config.maxInFlight, 2000],
    ["DATA_PLANE_MAX_IN_FLIGHT", "0", (config) => config.maxInFlight, 0],
    ["UPSTREAM_MAX_CONNECTIONS", "64", (config) => config.upstream.maxConnections, 64],
    ["METRICS_PORT", "", (config) => config.metricsPort, 9464],
    ["METRICS_PORT", "0", (config) => config.metricsPort, 0],
  ])("%s=%j is read", (name, raw, read, expected) => {
    expect(read(parse({ [name]: raw }))).toBe(expected);
  });

  it("reads the request timeouts: 0 turns the whole-request one off; the headers' may not exceed it", () => {
    expect(parse({ DATA_PLANE_HEADERS_TIMEOUT_MS: "2000", DATA_PLANE_REQUEST_TIMEOUT_MS: "3000" }).requestTimeouts).toEqual({
      headersMs: 2000,
      requestMs: 3000,
    });
    expect(parse({ DATA_PLANE_REQUEST_TIMEOUT_MS: "0" }).requestTimeouts).toEqual({ headersMs: 30_000, requestMs: 0 });
    expect(() => parse({ DATA_PLANE_REQUEST_TIMEOUT_MS: "20000" })).toThrow(
      "DATA_PLANE_HEADERS_TIMEOUT_MS (30000) must not exceed DATA_PLANE_REQUEST_TIMEOUT_MS (20000)",
    );
    expect(() => parse({ DATA_PLANE_HEADERS_TIMEOUT_MS: "0" })).toThrow(ConfigError);
    expect(() => parse({ DATA_PLANE_REQUEST_TIMEOUT_MS: "-1" })).toThrow(ConfigError);
  });

  it("reads the failed-validation limit and the trusted proxies", () => {
    expect(parse({})).toMatchObject({ authFailuresPerMinute: 60, trustedProxies: [] });
    expect(parse({ AUTH_FAILURES_PER_MINUTE: "0" }).authFailuresPerMinute).toBe(0);
    expect(parse({ TRUSTED_PROXIES: "10.0.0.1, 10.1.0.0/16,loopback,fd00::/8" }).trustedProxies).toEqual([
      "10.0.0.1",
      "10.1.0.0/16",
      "loopback",
      "fd00::/8",
    ]);
    expect(() => parse({ TRUSTED_PROXIES: "1" })).toThrow('TRUSTED_PROXIES: "1" is not an address');
    expect(() => parse({ TRUSTED_PROXIES: "proxy.local" })).toThrow(ConfigError);
    expect(() => parse({ AUTH_FAILURES_PER_MINUTE: "-1" })).toThrow(ConfigError);
  });

  it("keeps project and key labels off the metrics unless METRICS_PROJECT_LABELS=true (they are unbounded)", () => {
    expect(parse({}).metricsProjectLabels).toBe(false);
    expect(parse({ METRICS_PROJECT_LABELS: "true" }).metricsProjectLabels).toBe(true);
  });
});
