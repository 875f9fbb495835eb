// `pnpm db:migrate`: applies pending migrations to DATABASE_URL, or to the
// embedded PGlite in GATEWAY_DATA_DIR when no URL is set.
import path from "node:path";
import { repositoryRoot } from "../config";
import { openDatabase } from "./connect";

const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = path.resolve(repositoryRoot, process.env.GATEWAY_DATA_DIR || ".data/pglite");
const database = await openDatabase({ databaseUrl, dataDir });
await database.close();
console.log(`migrations applied to ${databaseUrl ? "PostgreSQL" : `PGlite at ${dataDir}`}`);
