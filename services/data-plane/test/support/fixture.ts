// Recorded upstream payloads kept beside the code that reads them (src/**/__fixtures__, each with a
// README saying where every file came from). A missing file throws, so the test that needs it fails.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SRC = path.resolve(import.meta.dirname, "../../src");

const FOLDERS = {
  anthropic: "providers/anthropic/__fixtures__",
  "anthropic-messages": "dialects/anthropic-messages/__fixtures__",
  azure: "providers/azure/__fixtures__",
  bedrock: "providers/bedrock/__fixtures__",
  gemini: "providers/gemini/__fixtures__",
  "openai-compatible": "providers/openai-compatible/__fixtures__",
  upstream: "upstream/__fixtures__",
  vertex: "providers/vertex/__fixtures__",
} as const;

export type FixtureFolder = keyof typeof FOLDERS;

export interface Fixtures {
  /** The file's path; throws when it does not exist. */
  path(file: string): string;
  bytes(file: string): Uint8Array;
  text(file: string): string;
  json<T = Record<string, unknown>>(file: string): T;
  /** The folder's file names that start with `prefix`, sorted. */
  names(prefix: string): string[];
}

/** The fixtures of one folder, e.g. `fixtures("anthropic").json("anthropic.messages.response.json")`. */
export function fixtures(folder: FixtureFolder): Fixtures {
  const dir = path.join(SRC, FOLDERS[folder]);
  const where = (file: string) => path.join("services/data-plane/src", FOLDERS[folder], file);
  const fixturePath = (file: string): string => {
    const full = path.join(dir, file);
    if (!existsSync(full)) throw new Error(`missing test fixture ${where(file)}: the test reads it, restore it from version control`);
    return full;
  };
  return {
    path: fixturePath,
    bytes: (file) => new Uint8Array(readFileSync(fixturePath(file))),
    text: (file) => readFileSync(fixturePath(file), "utf8"),
    json: <T>(file: string) => JSON.parse(readFileSync(fixturePath(file), "utf8")) as T,
    names: (prefix) => {
      if (!existsSync(dir)) throw new Error(`missing test fixture folder ${where("")}`);
      return readdirSync(dir)
        .filter((file) => file.startsWith(prefix))
        .sort();
    },
  };
}
