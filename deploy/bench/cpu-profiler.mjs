// Preloaded into a service by `gateway-bench.ts --cpu-prof <dir>` (NODE_OPTIONS="--import <this file>",
// since node refuses --cpu-prof in NODE_OPTIONS): profiles the whole process with the in-process
// inspector from the moment it receives SIGUSR2 (the benchmark sends it once the stack is warm,
// so start-up is left out) and writes <dir>/<pid>.cpuprofile when it exits. Plain JavaScript: it
// loads before tsx.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const directory = process.env.BENCH_CPU_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  let started = false;
  process.on("SIGUSR2", () => {
    if (started) return;
    started = true;
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
  });
  process.on("exit", () => {
    if (!started) return;
    // A session on the process's own thread answers synchronously, so this completes inside "exit".
    session.post("Profiler.stop", (error, result) => {
      if (error) return;
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
