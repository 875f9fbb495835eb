// One upstream answer through the engine's relay (engine/relay-answer.ts) for
// a client of the upstream's own dialect (OpenAI chat, Anthropic Messages or
// Responses on a path that speaks it), with the parts around it
// recorded instead of running: the bytes the client got, the usage billed, and
// what the attempt and the malformed-event counter were told. The same answer
// relayed as bytes and parsed gives what a differential test compares.
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import { Call } from "../../src/engine/call";
import type { CallPlan } from "../../src/engine/call-plan";
import type { MeteredTokens } from "../../src/engine/usage-meter";
import { relayAnswer } from "../../src/engine/relay-answer";
import { SseResponse } from "../../src/engine/sse-response";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import { bodyOf } from "./upstream-body";

export interface RelayRun {
  /** What reached the client: the stream's bytes, or the whole answer's body as it is sent. */
  client: Buffer;
  kind: "retry" | "relayed";
  /** The usage billed (undefined: nothing was). */
  billed: MeteredTokens | undefined;
  /** The attempt's outcome as the relay reported it, and the malformed events it counted (`lost` each). */
  attempt: string[];
  malformed: boolean[];
}

const chatAdapter = new OpenAiCompatibleAdapter();
const responsesAdapter = new OpenAiCompatibleAdapter([], true);
const anthropicAdapter = new AnthropicAdapter();
const DIALECTS = {
  chat: { dialect: openAiChat, adapter: chatAdapter },
  messages: { dialect: anthropicMessages, adapter: anthropicAdapter },
  responses: { dialect: openAiResponses, adapter: responsesAdapter },
};
const SILENT = { series: () => ({ observe: () => {} }) };

/** Relays `reads` (the upstream body, as it arrived read by read). */
export async function relayOnce(
  reads: readonly Buffer[],
  options: { stream: boolean; relayBytes: boolean; service?: boolean; maxBodyBytes?: number; dialect?: keyof typeof DIALECTS },
): Promise<RelayRun> {
  const { dialect, adapter } = DIALECTS[options.dialect ?? "chat"];
  const request = {
    operation: "chat" as const,
    body: {},
    original: {},
    stream: options.stream,
    service: options.service ? { reason: true } : undefined,
  };
  const target = {
    path: { upstreamModel: "gpt-test", provider: "openai" },
    model: { id: "gpt-test" },
    adapter,
    native: adapter.native(dialect.name),
    sized: { upstream: { path: "/chat/completions", headers: {}, body: '{"messages":[{"role":"user","content":"hello there"}]}' } },
  };
  const plan = {
    requestId: "00000000-0000-4000-8000-000000000000",
    request,
    dialect,
    trace: { attempts: [] },
    targets: [target],
  } as unknown as CallPlan;
  const call = new Call(plan, 0);
  const written: Buffer[] = [];
  const raw = {
    destroyed: false,
    writableEnded: false,
    writableNeedDrain: false,
    writeHead: () => {},
    write(chunk: string | Buffer) {
      written.push(Buffer.from(chunk));
      return true;
    },
    end(chunk?: string | Buffer) {
      if (chunk !== undefined) written.push(Buffer.from(chunk));
      raw.writableEnded = true;
    },
    on: () => {},
    off: () => {},
    destroy: () => {},
  };
  const reply = { raw, hijack: () => {}, getHeaders: () => ({}) };
  const sse = options.stream ? new SseResponse(reply as never, 60_000, 60_000, () => ({})) : undefined;
  const run: RelayRun = { client: Buffer.alloc(0), kind: "retry", billed: undefined, attempt: [], malformed: [] };
  const note = (outcome: string) => () => run.attempt.push(outcome);
  const attempts = {
    sentAt: 0,
    firstToken: () => {},
    answered: note("answered"),
    used: () => {},
    tooLarge: note("too_large"),
    failedBeforeFirstByte: (outcome: string) => run.attempt.push(`before:${outcome}`),
    failedAfterFirstByte: (outcome: string) => run.attempt.push(`after:${outcome}`),
  };
  const money = {
    settle: async (_call: Call, tokens: MeteredTokens) => {
      run.billed = tokens;
      return 1_234_567n;
    },
  };
  const response = { statusCode: 200, headers: {}, body: bodyOf(reads) };
  const result = await relayAnswer(
    {
      call,
      client: { gone: false, goneSignal: () => new AbortController().signal, upstream: undefined as never },
      attempts: attempts as never,
      money: money as never,
      sse,
      streamIdleTimeoutMs: 60_000,
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      relayBytes: options.relayBytes,
      firstEvent: SILENT as never,
      genAi: { firstToken: () => {} },
      malformedEvent: (_event, lost) => run.malformed.push(lost),
    },
    response as never,
  );
  run.kind = result.kind;
  if (sse) sse.end();
  else if (result.kind === "relayed") written.push(result.bytes ?? Buffer.from(JSON.stringify(result.body)));
  run.client = Buffer.concat(written);
  return run;
}

/** Splits `bytes` into reads at the given fractions of its length, as an upstream's body may arrive. */
export function reads(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * bytes.length)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    if (point <= from || point >= bytes.length) continue;
    parts.push(bytes.subarray(from, point));
    from = point;
  }
  parts.push(bytes.subarray(from));
  return parts;
}
