// API keys: sk_<project>_<secret>. <project> is the project's public id,
// <secret> 43 base62 characters from a CSPRNG (about 256 bits).
import { API_KEY_PATTERN } from "@gateway/proto";
import { createHash, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const SECRET_LENGTH = 43;
export const PROJECT_ID_PATTERN = /^[a-z0-9]{3,32}$/;

/** Uniform base62 characters by rejection sampling (no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function newApiKey(projectId: string): string {
  return `sk_${projectId}_${randomBase62(SECRET_LENGTH)}`;
}

export function parseApiKey(key: string): { projectId: string; secret: string } | undefined {
  const match = API_KEY_PATTERN.exec(key);
  return match ? { projectId: match[1]!, secret: match[2]! } : undefined;
}

/** Keys are stored as SHA-256 of the whole key: the secret is high-entropy, so no pepper or slow hash is needed. */
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const newProjectId = (): string => randomBase62(12).toLowerCase();
