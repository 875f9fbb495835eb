import { describe, expect, it } from "vitest";
import { ConfigError, parseControlPlaneConfig } from "../../src/config";

const strong = (name: string) => `${name}-${"s".repeat(32)}`;
const tokens = { GATEWAY_INTERNAL_TOKEN: strong("internal"), GATEWAY_ADMIN_TOKEN: strong("admin") };
const parse = (env: Record<string, string | undefined>) => parseControlPlaneConfig({ ...tokens, ...env });

describe("parseControlPlaneConfig: the shared secrets", () => {
  it("takes tokens of 32 characters or more", () => {
    const config = parse({ GATEWAY_INTERNAL_TOKEN: "i".repeat(32), GATEWAY_ADMIN_TOKEN: "a".repeat(32) });
    expect([config.internalToken, config.adminToken]).toEqual(["i".repeat(32), "a".repeat(32)]);
  });

  it.each(["GATEWAY_ADMIN_TOKEN", "GATEWAY_INTERNAL_TOKEN"])("refuses a short %s, saying how to make one", (name) => {
    expect(() => parse({ [name]: "x" })).toThrow(
      new ConfigError(
        `${name} is too short (1 of at least 32 characters). Make one with \`openssl rand -base64 32 | tr '+/' '-_'\`` +
          " (a development setup may set GATEWAY_ALLOW_WEAK_TOKENS=true instead).",
      ),
    );
    expect(() => parse({ [name]: "y".repeat(31) })).toThrow(ConfigError);
  });

  it.each(["GATEWAY_ADMIN_TOKEN", "GATEWAY_INTERNAL_TOKEN"])("refuses the deploy files' placeholder as %s, however long", (name) => {
    for (const placeholder of ["REPLACE_ME-admin-token", "REPLACE_ME_internal_token", `replace_me-${"z".repeat(40)}`]) {
      for (const allow of ["false", "true"])
        expect(() => parse({ [name]: placeholder, GATEWAY_ALLOW_WEAK_TOKENS: allow })).toThrow(
          new ConfigError(
            `${name} is still the deploy files' placeholder (REPLACE_ME...). Make one with \`openssl rand -base64 32 | tr '+/' '-_'\`.`,
          ),
        );
    }
  });

  it("takes short tokens in a development setup (GATEWAY_ALLOW_WEAK_TOKENS=true)", () => {
    const config = parse({ GATEWAY_INTERNAL_TOKEN: "x", GATEWAY_ADMIN_TOKEN: "admin", GATEWAY_ALLOW_WEAK_TOKENS: "TRUE" });
    expect([config.internalToken, config.adminToken]).toEqual(["x", "admin"]);
    expect(() => parse({ GATEWAY_ADMIN_TOKEN: "x", GATEWAY_ALLOW_WEAK_TOKENS: "false" })).toThrow(ConfigError);
    expect(() => parse({ GATEWAY_ALLOW_WEAK_TOKENS: "1" })).toThrow(
      new ConfigError('GATEWAY_ALLOW_WEAK_TOKENS must be true or false, got "1"'),
    );
  });

  it("still requires both", () => {
    expect(() => parseControlPlaneConfig({ GATEWAY_ADMIN_TOKEN: tokens.GATEWAY_ADMIN_TOKEN })).toThrow(
      new ConfigError("GATEWAY_INTERNAL_TOKEN is required"),
    );
    expect(() => parseControlPlaneConfig({ GATEWAY_INTERNAL_TOKEN: tokens.GATEWAY_INTERNAL_TOKEN })).toThrow(
      new ConfigError("GATEWAY_ADMIN_TOKEN is required"),
    );
  });
});

describe("parseControlPlaneConfig: Subscribe streams", () => {
  it("holds 1,000 Subscribe streams at most unless CONTROL_PLANE_MAX_SUBSCRIBERS says otherwise (at least 1)", () => {
    expect(parse({}).maxSubscribers).toBe(1000);
    expect(parse({ CONTROL_PLANE_MAX_SUBSCRIBERS: "50" }).maxSubscribers).toBe(50);
    expect(() => parse({ CONTROL_PLANE_MAX_SUBSCRIBERS: "0" })).toThrow(
      new ConfigError('CONTROL_PLANE_MAX_SUBSCRIBERS must be an integer >= 1, got "0"'),
    );
  });
});

describe("parseControlPlaneConfig: admin API timeouts", () => {
  it("gives the headers 10 s and the whole request 60 s unless set", () => {
    expect(parse({})).toMatchObject({ adminHeadersTimeoutMs: 10_000, adminRequestTimeoutMs: 60_000 });
    expect(parse({ ADMIN_HEADERS_TIMEOUT_MS: "500", ADMIN_REQUEST_TIMEOUT_MS: "500" })).toMatchObject({
      adminHeadersTimeoutMs: 500,
      adminRequestTimeoutMs: 500,
    });
  });

  it("refuses a headers timeout longer than the request's, and a timeout of 0", () => {
    expect(() => parse({ ADMIN_HEADERS_TIMEOUT_MS: "70000" })).toThrow(
      new ConfigError("ADMIN_HEADERS_TIMEOUT_MS (70000) must not exceed ADMIN_REQUEST_TIMEOUT_MS (60000)"),
    );
    expect(() => parse({ ADMIN_REQUEST_TIMEOUT_MS: "0" })).toThrow(
      new ConfigError('ADMIN_REQUEST_TIMEOUT_MS must be an integer >= 1, got "0"'),
    );
  });
});

describe("parseControlPlaneConfig: TLS files", () => {
  it("has no TLS unless certificate files are given; reads them again every minute", () => {
    expect(parse({})).toMatchObject({ grpcTls: undefined, adminTls: undefined, tlsReloadIntervalMs: 60_000 });
  });

  it("takes a certificate and key for each listener, and a client CA for mutual TLS on gRPC", () => {
    const config = parse({
      CONTROL_PLANE_GRPC_TLS_CERT_FILE: "/tls/grpc.crt",
      CONTROL_PLANE_GRPC_TLS_KEY_FILE: "/tls/grpc.key",
      CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE: "/tls/clients.crt",
      CONTROL_PLANE_ADMIN_TLS_CERT_FILE: "/tls/admin.crt",
      CONTROL_PLANE_ADMIN_TLS_KEY_FILE: "/tls/admin.key",
      TLS_RELOAD_INTERVAL_MS: "5000",
    });
    expect(config).toMatchObject({
      grpcTls: { certificateFile: "/tls/grpc.crt", privateKeyFile: "/tls/grpc.key", clientCaFile: "/tls/clients.crt" },
      adminTls: { certificateFile: "/tls/admin.crt", privateKeyFile: "/tls/admin.key" },
      tlsReloadIntervalMs: 5000,
    });
  });

  it("refuses a certificate without its key, and a client CA without a server certificate", () => {
    expect(() => parse({ CONTROL_PLANE_ADMIN_TLS_CERT_FILE: "/tls/admin.crt" })).toThrow(
      new ConfigError("CONTROL_PLANE_ADMIN_TLS_CERT_FILE and CONTROL_PLANE_ADMIN_TLS_KEY_FILE go together: set both or neither"),
    );
    expect(() => parse({ CONTROL_PLANE_GRPC_TLS_KEY_FILE: "/tls/grpc.key" })).toThrow(ConfigError);
    expect(() => parse({ CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE: "/tls/clients.crt" })).toThrow(
      new ConfigError("CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE needs CONTROL_PLANE_GRPC_TLS_CERT_FILE and _KEY_FILE"),
    );
  });
});

describe("parseControlPlaneConfig: the console's build", () => {
  it("serves services/console/dist unless GATEWAY_CONSOLE_DIR names another folder", () => {
    expect(parse({}).consoleDir).toBeUndefined();
    expect(parse({ GATEWAY_CONSOLE_DIR: "/tmp/console-build" }).consoleDir).toBe("/tmp/console-build");
  });
});
