// Azure OpenAI's error envelope is OpenAI's with a string `code` that is often
// the HTTP status ("401", "429") or an Azure name ("DeploymentNotFound"), and
// an `innererror.code` on content-filter refusals. Read from those structured
// fields only, never the message; what is not Azure's own is read as OpenAI's
// (an Azure deployment relays OpenAI's codes, e.g. context_length_exceeded).
// The status decides the rest: 401/403 are the path's credentials, 429 a rate limit.
import type { UpstreamErrorCategory } from "../../errors";
import { classifyUpstreamError } from "../openai-compatible/classify-error";

const BY_AZURE_CODE: Record<string, UpstreamErrorCategory> = {
  DeploymentNotFound: "model_not_found",
  // The prompt (or, on older versions, the completion) was refused by the content filter: the request's doing.
  ResponsibleAIPolicyViolation: "content_policy",
  content_filter: "content_policy",
};

export function classifyAzureError(body: unknown): UpstreamErrorCategory | undefined {
  const error = (body as { error?: { code?: unknown; innererror?: { code?: unknown } } } | null)?.error;
  for (const code of [error?.innererror?.code, error?.code]) {
    if (typeof code === "string" && Object.hasOwn(BY_AZURE_CODE, code)) return BY_AZURE_CODE[code];
  }
  return classifyUpstreamError(body);
}
