// The pieces of the Gemini API (generativelanguage v1beta) JSON the adapter
// writes and reads, in their camelCase JSON spelling (field names as in
// Google's published protos of the API). Answers are untrusted until read, so
// the readers check every field's type instead of trusting these shapes.

export interface GeminiPart {
  text?: string;
  /** Marks a thought summary (only sent when thinking output is asked for). */
  thought?: boolean;
  inlineData?: { mimeType: string; data: string };
  fileData?: { fileUri: string; mimeType?: string };
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  /** "user" or "model"; function responses travel in "user" turns. */
  role: "user" | "model";
  parts: GeminiPart[];
}

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
