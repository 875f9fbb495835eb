// Load that keeps what every client was told: workers send chat completions to one data plane, back
// to back, and record each answer's request id and usage.cost, until stopped or the data plane dies.
// Used to compare answers with the ledger after SIGKILLs (draw-journal-sigkill.test.ts,
// deploy/bench/sigkill-draws.ts).
import { Agent, request } from "undici";
import { costToNano } from "./gateway-stack";

export interface AnswerLoad {
  /** Request id -> what its client was told it cost (nano-USD), for every answer received whole. */
  readonly answered: Map<string, bigint>;
  /** Requests that got no whole answer (refused connection, cut socket, non-200). */
  failed: number;
  /** Stops sending; resolves when every worker is done. */
  stop(): Promise<void>;
}

export function startAnswerLoad(options: { url: string; key: string; concurrency: number; tag: string }): AnswerLoad {
  const agent = new Agent({ connections: options.concurrency, pipelining: 1 });
  const answered = new Map<string, bigint>();
  let stopped = false;
  const load = {
    answered,
    failed: 0,
    stop: async () => {
      stopped = true;
      await workers;
      await agent.close();
    },
  };
  const body = JSON.stringify({
    model: "openai/gpt-4.1-mini",
    max_tokens: 32,
    messages: [{ role: "user", content: `${options.tag} hello` }],
  });
  const worker = async () => {
    while (!stopped) {
      try {
        const response = await request(`${options.url}/v1/chat/completions`, {
          method: "POST",
          dispatcher: agent,
          headers: { "content-type": "application/json", authorization: `Bearer ${options.key}` },
          body,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200) {
          load.failed++;
          continue;
        }
        const cost = (JSON.parse(text) as { usage: { cost: number } }).usage.cost;
        answered.set(String(response.headers["x-request-id"]), costToNano(cost));
      } catch {
        load.failed++;
        return; // the data plane is gone
      }
    }
  };
  const workers = Promise.all(Array.from({ length: options.concurrency }, worker));
  return load;
}
