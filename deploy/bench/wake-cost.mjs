// What one sleep/wake cycle costs this machine in CPU time, measured in a bare node process (no
// gateway code), pinned to the gateway's CPU. Every hop of a request at concurrency 1 is such a cycle,
// and on some virtual machines it costs tens of times more than on bare metal: the benchmark reports it
// beside the concurrency-1 figures (docs/benchmark.md).
//
// Prints one JSON line: { sleepWakeMicros, workMicros, workAfterWakeMicros }.
const ROUNDS = 2_000;

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Work of the kind a request does: JSON in and out, small objects, a Map.
const message = {
  id: "chatcmpl-1",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello! How can I help you today? ".repeat(4) } }],
  usage: { prompt_tokens: 9, completion_tokens: 12 },
};
function work() {
  let tokens = 0;
  for (let round = 0; round < 10; round++) tokens += JSON.parse(JSON.stringify(message)).usage.prompt_tokens;
  const seen = new Map();
  for (let index = 0; index < 100; index++) seen.set(`k${index}`, { index });
  return tokens + seen.size;
}

for (let round = 0; round < 5 * ROUNDS; round++) work(); // optimised before it is timed

let start = cpuMicros();
for (let round = 0; round < ROUNDS; round++) await sleep(1);
const sleepWakeMicros = (cpuMicros() - start) / ROUNDS;

start = cpuMicros();
for (let round = 0; round < ROUNDS; round++) work();
const workMicros = (cpuMicros() - start) / ROUNDS;

start = cpuMicros();
for (let round = 0; round < ROUNDS; round++) {
  await sleep(1);
  work();
}
const workAfterWakeMicros = (cpuMicros() - start) / ROUNDS - sleepWakeMicros;

console.log(
  JSON.stringify({
    sleepWakeMicros: Math.round(sleepWakeMicros),
    workMicros: Math.round(workMicros),
    workAfterWakeMicros: Math.round(workAfterWakeMicros),
  }),
);
