// The category of a Bedrock error, from its structured name only (never the
// message text): the `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/...`,
// the part before `:`), else the body's `__type` (`com.amazon.coral.service#UnknownOperationException`,
// the part after `#`). In-stream exception frames name theirs in lower camel case
// (`throttlingException`); the names are compared case-insensitively in the first letter.
//
// The HTTP status says what the gateway does with most of them: ThrottlingException and
// ModelNotReadyException come as 429 (rate limited, retried elsewhere), ServiceUnavailableException,
// InternalServerException as 5xx (transient), AccessDenied / UnrecognizedClient / InvalidSignature /
// ExpiredToken as 403 (the path's own credentials; the next path serves), ValidationException as 400.
// A cause the status does not carry becomes a category:
//   ResourceNotFoundException -> model_not_found (the one resource a model call names is the model)
//   ServiceQuotaExceededException (400) -> quota_exceeded: the operator's quota, acted on as a 429
//   ModelTimeoutException (408), ModelErrorException (424) -> provider_failed: acted on as a 502
// ValidationException also covers a too-long prompt, a bad image and an unsupported parameter,
// told apart by its message text only: no category.
import type { UpstreamErrorCategory } from "../../errors";
import type { UpstreamHeaders } from "../provider-adapter";
import { isRecord } from "../chat-usage";

const BY_ERROR_NAME: Record<string, UpstreamErrorCategory> = {
  ResourceNotFoundException: "model_not_found",
  ServiceQuotaExceededException: "quota_exceeded",
  ModelTimeoutException: "provider_failed",
  ModelErrorException: "provider_failed",
};

/** The error's name: from the header when it has one, else the body's `__type`; undefined when neither names it. */
export function bedrockErrorName(body: unknown, headers?: UpstreamHeaders): string | undefined {
  const header = headers?.["x-amzn-errortype"];
  const headerValue = Array.isArray(header) ? header[0] : header;
  if (headerValue) return upperFirst(headerValue.split(":")[0]!.trim());
  const type = isRecord(body) ? (body.__type ?? (isRecord(body.Output) ? body.Output.__type : undefined)) : undefined;
  if (typeof type === "string" && type !== "") return upperFirst(type.slice(type.lastIndexOf("#") + 1));
  return undefined;
}

export function classifyBedrockError(body: unknown, headers?: UpstreamHeaders): UpstreamErrorCategory | undefined {
  const name = bedrockErrorName(body, headers);
  return name !== undefined && Object.hasOwn(BY_ERROR_NAME, name) ? BY_ERROR_NAME[name] : undefined;
}

/** An in-stream exception (`:exception-type`, e.g. `throttlingException`) by the same table. */
export function classifyBedrockException(exceptionType: string): UpstreamErrorCategory | undefined {
  const name = upperFirst(exceptionType);
  return Object.hasOwn(BY_ERROR_NAME, name) ? BY_ERROR_NAME[name] : undefined;
}

const upperFirst = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);
