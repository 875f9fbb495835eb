// What reading one chat chunk costs: the same-dialect relay's scan
// (dialects/openai/chat-json-scan.ts: validate, count the produced text)
// against what the parsing path does (decode, JSON.parse, the usage meter's
// walk of each choice's delta), over every chunk of the recorded OpenAI stream.
// Run it bundled as production runs the data plane (tsx names every closure it
// creates, which a per-call closure would pay for):
//
//   npx esbuild --bundle --platform=node deploy/bench/scan-cost.ts --outfile=/tmp/scan-cost.cjs && node /tmp/scan-cost.cjs
import { readFileSync } from "node:fs";
import path from "node:path";
import { ChatJsonScan, DELTA } from "../../services/data-plane/src/dialects/openai/chat-json-scan";
import { producedText } from "../../services/data-plane/src/engine/usage-meter";

// Run from the repository root, as every benchmark here.
const fixture = path.resolve("services/mock-provider/fixtures/openai.chat.stream.sse");
const chunks = readFileSync(fixture, "utf8")
  .split("\n\n")
  .map((event) => event.replace(/^data: /, ""))
  .filter((data) => data.startsWith("{"))
  .map((data) => Buffer.from(data));
const scan = new ChatJsonScan();
const ROUNDS = 20_000;
let sink = 0;
for (let round = 0; round < 3; round++) {
  let started = performance.now();
  for (let index = 0; index < ROUNDS; index++)
    for (const chunk of chunks) if (scan.scan(chunk, 0, chunk.length, DELTA)) sink += scan.producedBytes;
  const scanned = ((performance.now() - started) * 1000) / (ROUNDS * chunks.length);
  started = performance.now();
  for (let index = 0; index < ROUNDS; index++)
    for (const chunk of chunks) {
      const parsed = JSON.parse(chunk.toString("utf8")) as { choices?: { delta?: unknown }[] };
      for (const choice of parsed.choices ?? []) sink += Buffer.byteLength(producedText(choice.delta));
    }
  const parsed = ((performance.now() - started) * 1000) / (ROUNDS * chunks.length);
  console.log(
    `${chunks.length} chunks: scan ${scanned.toFixed(3)} µs a chunk, decode + parse + walk ${parsed.toFixed(3)} µs (${sink > 0})`,
  );
}
