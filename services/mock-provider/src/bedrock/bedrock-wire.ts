// Bedrock's wire form for the shared senders: `{"message": ...}` error bodies (the
// recorded bedrock.error.* files), and the `x-amzn-ErrorType` header AWS SDKs read the
// error's name from (`<Name>:<namespace>`). The name comes from the status, or from the
// error fixture a script names (429 is ThrottlingException or ModelNotReadyException),
// or from the auth check that refused the call; so a wire is made per exchange.
import type { Json } from "../json";
import type { Script } from "../types";
import type { Wire } from "../wire";

/** The namespace of Bedrock's own exceptions. */
const BEDROCK = "http://internal.amazon.com/coral/com.amazon.bedrock/";
/** The namespace of the AWS front door's (auth, unknown operations). */
export const CORAL_SERVICE = "http://internal.amazon.com/coral/com.amazon.coral.service/";

export const errorType = (name: string, namespace = BEDROCK) => `${name}:${namespace}`;

/** Exceptions by status, as AWS's Bedrock Runtime service model declares them (each exception's httpStatusCode). */
const EXCEPTION_BY_STATUS: Record<number, string> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

/** The recorded body sent for a scripted status without a named fixture. */
const FIXTURE_BY_STATUS: Record<number, string> = {
  400: "bedrock.error.400.validation",
  403: "bedrock.error.403.access_denied",
  404: "bedrock.error.404.model_not_found",
  429: "bedrock.error.429.throttling",
  503: "bedrock.error.503.service_unavailable",
};

/** Error fixtures whose exception is not the one their status implies. */
const EXCEPTION_BY_FIXTURE: Record<string, string> = {
  "bedrock.error.429.model_not_ready": errorType("ModelNotReadyException"),
  "bedrock.error.403.invalid_security_token": errorType("UnrecognizedClientException", CORAL_SERVICE),
  "bedrock.error.403.api_key_invalid": errorType("AccessDeniedException", CORAL_SERVICE),
  "bedrock.error.404.unknown_operation": errorType("UnknownOperationException", CORAL_SERVICE),
};

const MESSAGES: Record<number, string> = {
  408: "Model has timed out in processing the request. Try your request again.",
  424: "The model returned an error (mock).",
  500: "The system encountered an unexpected error during processing. Try your request again.",
};

const defaultType = (status: number) =>
  errorType(EXCEPTION_BY_STATUS[status] ?? (status >= 500 ? "InternalServerException" : "ValidationException"));

/** The `x-amzn-ErrorType` a scripted error answers with. */
export function scriptedErrorType(script: Script | undefined): string | undefined {
  return script?.errorFixture === undefined ? undefined : EXCEPTION_BY_FIXTURE[script.errorFixture];
}

/** The wire of one exchange; `exception` (a full x-amzn-ErrorType value) overrides the one the status implies. */
export function createBedrockWire(errors: Readonly<Record<string, Json>>, exception?: string): Wire {
  return {
    errorBody: (status) => {
      const fixture = FIXTURE_BY_STATUS[status];
      return (fixture && errors[fixture]) || { message: MESSAGES[status] ?? `Mock error (HTTP ${status}).` };
    },
    invalidRequest: (message) => ({ message }),
    // What AWS answers for a path no operation has (an ARN whose `/` was not sent as %2F, for one).
    notFound: () =>
      errors["bedrock.error.404.unknown_operation"] ?? {
        Output: { __type: "com.amazon.coral.service#UnknownOperationException" },
        Version: "1.0",
      },
    fixtureBody: (fixture) => fixture,
    errorHeaders: (status): Record<string, string> => ({ "x-amzn-errortype": exception ?? defaultType(status) }),
  };
}
