// Process entry point: the only place that reads the environment or listens.
// Prints exactly one line on stdout (tests and start scripts parse it).
import { buildMockProvider } from "./app";

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? "127.0.0.1";
const apiKey = process.env.MOCK_PROVIDER_API_KEY || undefined;
const promptCache = /^(on|true|1)$/i.test(process.env.MOCK_PROVIDER_PROMPT_CACHE ?? "");

const app = buildMockProvider({ apiKey, promptCache });
await app.listen({ port, host });

const address = app.server.address();
const boundPort = typeof address === "object" && address ? address.port : port;
const shownHost = host.includes(":") ? `[${host}]` : host;
process.stdout.write(`mock-provider listening on http://${shownHost}:${boundPort}\n`);

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`mock-provider: error while closing: ${String(error)}\n`);
    process.exit(1);
  }
}
process.once("SIGTERM", () => void shutdown());
process.once("SIGINT", () => void shutdown());
