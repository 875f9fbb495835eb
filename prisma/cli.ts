// Offline Prisma tasks. The Prisma CLI runs with the JS schema engine on an
// in-memory PGlite (prisma/prisma.config.ts); it never touches a real database here.
//
//   tsx prisma/cli.ts generate          generate the client (services/control-plane/src/generated/prisma)
//   tsx prisma/cli.ts migration <name>  write prisma/migrations/NNNN_<name>/ from the schema change
//   tsx prisma/cli.ts check             fail when schema.prisma has changes no migration covers
//
// Each migration folder keeps `schema.snapshot.prisma`, the schema it was generated
// from, so the next migration is a diff between two schema files: no shadow
// database is needed (the PGlite adapter cannot run one).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const config = "prisma/prisma.config.ts";
const schema = "prisma/schema.prisma";
const migrationsDir = path.join(root, "prisma/migrations");
const snapshotName = "schema.snapshot.prisma";

function prisma(args: string[], options: { allowExit?: number[] } = {}): { status: number; stdout: string } {
  // The schema's datasource url is only read by the CLI's config parser; the
  // client always connects through a driver adapter. A placeholder keeps the
  // CLI from falling back to downloading a query-engine binary.
  const env = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://unused@localhost/unused" };
  try {
    const stdout = execFileSync(path.join(root, "node_modules/.bin/prisma"), [...args, "--config", config], {
      cwd: root,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    return { status: 0, stdout };
  } catch (error) {
    const failure = error as { status?: number; stdout?: string };
    if (failure.status !== undefined && options.allowExit?.includes(failure.status))
      return { status: failure.status, stdout: failure.stdout ?? "" };
    throw error;
  }
}

function migrationFolders(): string[] {
  if (!existsSync(migrationsDir)) return [];
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function diffArgsFromLatest(): string[] {
  const latest = migrationFolders().at(-1);
  return latest ? ["--from-schema-datamodel", path.join("prisma/migrations", latest, snapshotName)] : ["--from-empty"];
}

const [command, name] = process.argv.slice(2);
switch (command) {
  case "generate":
    prisma(["generate", "--schema", schema]);
    break;
  case "migration": {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: migration <name> (lower case, digits, _)");
    const sql = prisma(["migrate", "diff", ...diffArgsFromLatest(), "--to-schema-datamodel", schema, "--script"]).stdout;
    if (!sql.trim() || /^-- This is an empty migration\./m.test(sql)) {
      console.log("schema.prisma has no change to migrate");
      break;
    }
    const folder = path.join(migrationsDir, `${String(migrationFolders().length + 1).padStart(4, "0")}_${name}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "migration.sql"), sql);
    copyFileSync(path.join(root, schema), path.join(folder, snapshotName));
    console.log(`wrote ${path.relative(root, folder)}`);
    break;
  }
  case "check": {
    const { status } = prisma(["migrate", "diff", ...diffArgsFromLatest(), "--to-schema-datamodel", schema, "--exit-code"], {
      allowExit: [2],
    });
    if (status === 2) {
      console.error("prisma/schema.prisma has changes that no migration covers: run `pnpm db:migration <name>`");
      process.exit(1);
    }
    console.log("migrations cover prisma/schema.prisma");
    break;
  }
  default:
    throw new Error("usage: tsx prisma/cli.ts generate | migration <name> | check");
}
