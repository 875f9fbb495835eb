// Preloaded into a service by `gateway-bench.ts --cpu-prof <dir>` and `profile-case.ts` (NODE_OPTIONS=
// "--import <this file>", since node refuses --cpu-prof in NODE_OPTIONS): profiles the whole process with the
// in-process inspector. SIGUSR2 starts a profile (the benchmark sends it once the stack is warm, so start-up
// is left out); a second SIGUSR2 stops it and writes <dir>/<pid>-<n>.cpuprofile (one profile per measured
// case); a profile still running at exit is written as <dir>/<pid>.cpuprofile. Plain JavaScript: it loads
// before tsx.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const directory = process.env.BENCH_CPU_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  let running = false;
  let written = 0;
  const write = (name) =>
    // A session on the process's own thread answers synchronously, so this completes inside "exit" too.
    session.post("Profiler.stop", (error, result) => {
      if (error) return;
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, name), JSON.stringify(result.profile));
    });
  process.on("SIGUSR2", () => {
    if (running) {
      running = false;
      write(`${process.pid}-${++written}.cpuprofile`);
      return;
    }
    running = true;
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
  });
  process.on("exit", () => {
    if (running) write(`${process.pid}.cpuprofile`);
  });
}
