// The README's test command on a machine without its services: `pnpm test` checks for PostgreSQL,
// Redis and redis-server before anything else, and names what is missing and the one command that
// starts both. That command's compose file is checked as far as this machine allows (no Docker
// here): it parses, and its services, ports, user and database are the ones the suite uses.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repositoryRoot } from "../local/service-process";
import { DEFAULT_TEST_POSTGRES_URL, DEFAULT_TEST_REDIS_URL, START_TEST_SERVICES } from "./test-services";

type Json = Record<string, any>;

const checkServices = (env: Record<string, string>) =>
  spawnSync(path.join(repositoryRoot, "node_modules/.bin/tsx"), ["deploy/test/check-services.ts"], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });

describe("the test command's services", () => {
  it("runs the check first, before generation checks, lint and tests", () => {
    const scripts = JSON.parse(readFileSync(path.join(repositoryRoot, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test!.startsWith("tsx deploy/test/check-services.ts && ")).toBe(true);
  });

  it("passes on this machine, whose services are up", () => {
    const run = checkServices({});
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("without PostgreSQL and Redis: fails once, naming both and the command that starts them", () => {
    // Ports nothing listens on (1 and 2 are privileged and unused here).
    const run = checkServices({ TEST_POSTGRES_URL: "postgresql://postgres@127.0.0.1:1/test", TEST_REDIS_URL: "redis://127.0.0.1:2" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("PostgreSQL at postgresql://postgres@127.0.0.1:1/test");
    expect(run.stderr).toContain("Redis at redis://127.0.0.1:2");
    expect(run.stderr).toContain(START_TEST_SERVICES);
  });

  it("without Redis alone: names Redis only", () => {
    const run = checkServices({ TEST_REDIS_URL: "redis://127.0.0.1:2" });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain("PostgreSQL at");
    expect(run.stderr).toContain("Redis at redis://127.0.0.1:2");
  });

  it("the command's compose file starts PostgreSQL and Redis where the suite looks for them", () => {
    const [, , , file, , , ...services] = START_TEST_SERVICES.split(" ");
    expect(START_TEST_SERVICES).toMatch(/^docker compose -f \S+ up -d postgres redis$/);
    const compose = parse(readFileSync(path.join(repositoryRoot, file!), "utf8")) as Json;
    expect(Object.keys(compose.services).sort()).toEqual(["postgres", "redis"]);
    expect(services).toEqual(["postgres", "redis"]);

    // Where the suite looks when TEST_POSTGRES_URL and TEST_REDIS_URL are not set.
    const postgresUrl = new URL(DEFAULT_TEST_POSTGRES_URL);
    const redisUrl = new URL(DEFAULT_TEST_REDIS_URL);
    const postgres = compose.services.postgres as Json;
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(postgres.ports).toEqual([`${postgresUrl.hostname}:${postgresUrl.port}:5432`]);
    expect(postgres.environment).toMatchObject({
      POSTGRES_USER: postgresUrl.username,
      POSTGRES_DB: postgresUrl.pathname.slice(1),
      POSTGRES_HOST_AUTH_METHOD: "trust", // the suite connects without a password
    });
    const redis = compose.services.redis as Json;
    expect(redis.image).toMatch(/^redis:\d+/);
    expect(redis.ports).toEqual([`${redisUrl.hostname}:${redisUrl.port}:6379`]);
    for (const service of [postgres, redis]) expect(service.healthcheck.test.length).toBeGreaterThan(1);
  });
});
