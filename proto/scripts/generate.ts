// Generates TypeScript types for the gRPC contract with proto-loader-gen-types
// (shipped with @grpc/proto-loader; no protoc binary needed).
//   tsx scripts/generate.ts           write src/generated/
//   tsx scripts/generate.ts --check   fail when src/generated/ is stale
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { generatorFlags } from "../src/loader-options.ts";

const packageRoot = path.resolve(import.meta.dirname, "..");
const protoFiles = ["gateway/v1/control_plane.proto"];
const generatedDir = path.join(packageRoot, "src/generated");
const generatorBin = createRequire(import.meta.url).resolve("@grpc/proto-loader/build/bin/proto-loader-gen-types.js");

function generate(outDir: string): void {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [generatorBin, ...generatorFlags, "--includeDirs", packageRoot, "--outDir", outDir, ...protoFiles], {
    cwd: packageRoot,
    stdio: "inherit",
  });
  // The generator writes the proto's absolute path into each file; make it
  // relative so the output is the same in every checkout.
  for (const file of listFiles(outDir)) {
    const full = path.join(outDir, file);
    writeFileSync(full, readFileSync(full, "utf8").replaceAll(`${packageRoot}${path.sep}`, ""));
  }
}

function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? listFiles(full, path.join(prefix, name)) : [path.join(prefix, name)];
    })
    .sort();
}

if (process.argv.includes("--check")) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "proto-gen-"));
  try {
    generate(scratch);
    const expected = listFiles(scratch);
    const actual = listFiles(generatedDir);
    const stale = expected.filter(
      (file) =>
        !actual.includes(file) || readFileSync(path.join(scratch, file), "utf8") !== readFileSync(path.join(generatedDir, file), "utf8"),
    );
    const extra = actual.filter((file) => !expected.includes(file));
    if (stale.length || extra.length) {
      console.error(`proto/src/generated is stale (${[...stale, ...extra].join(", ")}): run \`pnpm gen\``);
      process.exit(1);
    }
    console.log("proto/src/generated is up to date");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  generate(generatedDir);
}
