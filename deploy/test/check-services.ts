// The first step of `pnpm test`: the suite needs PostgreSQL and Redis on their
// default ports (or TEST_POSTGRES_URL / TEST_REDIS_URL) and the redis-server
// binary (tests that break Redis start their own), and Chromium for the console's browser tests. Without them every test
// would fail on its own. The two binaries it installs itself where it may (system-packages.ts); for the rest,
// and where it may not install, it says once what is missing and how to get it.
import { spawnSync } from "node:child_process";
import net from "node:net";
import pg from "pg";
import { CHROMIUM } from "../../services/console/test/chromium-path";
import { fileFromPackage, installMissing, thisMachine } from "./system-packages";
import { START_TEST_SERVICES, TEST_POSTGRES_URL, TEST_REDIS_URL } from "./test-services";

const TIMEOUT_MS = 3000;

async function postgresAnswers(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** PING over a bare socket: the check needs no Redis client library. */
function redisAnswers(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(TIMEOUT_MS, () => done("no answer within 3 s"));
    socket.on("error", (error) => done(error.message));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG") ? undefined : `answered ${JSON.stringify(data.toString())}`));
  });
}

const redisServer = { name: "redis-server", present: () => spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0 };
/** Debian's package puts Chromium where CHROMIUM points by default; a CHROMIUM_PATH of the user's own is not installed over. */
const chromium = fileFromPackage("chromium", CHROMIUM);
const installable = process.env.CHROMIUM_PATH === undefined ? [redisServer, chromium] : [redisServer];

async function main(): Promise<void> {
  installMissing(installable, thisMachine, (line) => process.stderr.write(`${line}\n`));
  const [postgres, redis] = await Promise.all([postgresAnswers(TEST_POSTGRES_URL), redisAnswers(TEST_REDIS_URL)]);
  const missing: string[] = [];
  if (postgres) missing.push(`PostgreSQL at ${TEST_POSTGRES_URL} (user postgres, trust auth, database test): ${postgres}`);
  if (redis) missing.push(`Redis at ${TEST_REDIS_URL}: ${redis}`);
  if (!redisServer.present())
    missing.push("the redis-server binary on PATH (tests that stop Redis start their own): apt-get install redis-server");
  if (!chromium.present())
    missing.push(`Chromium at ${CHROMIUM} (the console's browser tests; or CHROMIUM_PATH): apt-get install chromium`);
  if (missing.length === 0) return;
  const lines = ["The tests cannot run: missing", ...missing.map((line) => `  - ${line}`)];
  if (postgres || redis) lines.push("Start both with:", `  ${START_TEST_SERVICES}`);
  process.stderr.write(`${lines.join("\n")}\n`);
  process.exit(1);
}

await main();
