// Databases the suite's global setup (global-setup.ts) prepares once per run for the test stacks to copy:
// migrated, with the default catalogue loaded exactly as a control plane's first start loads it on an
// empty database (loadDefaultCatalogue, onlyIfEmpty, as the control plane's own action). On a 2-core
// machine that load is about 1.5 s of each control plane's start on either backend; PostgreSQL copies
// a template database (CREATE DATABASE ... TEMPLATE, postgres-template.ts) in under 0.1 s, as an empty one.
import { randomBytes } from "node:crypto";
import { loadDefaultCatalogue } from "../../services/control-plane/src/catalogue/load-default-catalogue";
import { CatalogueService } from "../../services/control-plane/src/catalogue/catalogue-service";
import { ChangeFeed } from "../../services/control-plane/src/changes/change-feed";
import { parseControlPlaneConfig } from "../../services/control-plane/src/config";
import { openDatabase } from "../../services/control-plane/src/database/connect";
import { withTestPostgres } from "./postgres-template";
import { TEST_POSTGRES_URL } from "./test-services";

/** Migrates the database (or PGlite folder) and loads the default catalogue into it, as a control plane's first start does. */
export async function migrateWithDefaultCatalogue(options: { databaseUrl: string | undefined; dataDir: string }): Promise<void> {
  const database = await openDatabase(options);
  const changes = new ChangeFeed(database, 60_000, () => {});
  try {
    const token = () => randomBytes(16).toString("hex");
    const { defaultCatalogueFile } = parseControlPlaneConfig({ GATEWAY_INTERNAL_TOKEN: token(), GATEWAY_ADMIN_TOKEN: token() });
    await loadDefaultCatalogue(new CatalogueService(database.prisma, changes), defaultCatalogueFile, undefined, { onlyIfEmpty: true });
  } finally {
    await changes.stop();
    await database.close();
  }
}

/**
 * A template database of this run on the test server, migrated and with the default catalogue; closed to
 * connections, so a copy never fails for a session still on it. Returns its name and how to drop it;
 * undefined when the server cannot be reached (the stacks then start on empty databases, as before).
 */
export async function createPostgresTemplate(): Promise<{ name: string; drop(): Promise<void> } | undefined> {
  const name = `gateway_test_template_${randomBytes(6).toString("hex")}`;
  try {
    await withTestPostgres((client) => client.query(`CREATE DATABASE ${name}`));
  } catch {
    return undefined;
  }
  const drop = () => withTestPostgres((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {});
  try {
    await migrateWithDefaultCatalogue({ databaseUrl: TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${name}`), dataDir: "" });
    await withTestPostgres((client) => client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`));
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  }
  return { name, drop };
}
