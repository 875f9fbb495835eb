// Preloaded into the data plane by alloc-profile.ts (NODE_OPTIONS="--import <this file>"): V8's sampling heap
// profiler, which records where the process allocates (sampled every 8 KiB on average, objects collected since
// included). SIGUSR2 starts sampling; a second SIGUSR2 writes <dir>/<pid>-<n>.heapprofile and stops. Plain
// JavaScript: it loads before tsx.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const directory = process.env.BENCH_HEAP_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  let running = false;
  let written = 0;
  process.on("SIGUSR2", () => {
    if (!running) {
      running = true;
      // Objects the young generation already collected are kept in the profile: the GC's work is what matters here.
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 8192,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return;
    }
    running = false;
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (error) return;
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, `${process.pid}-${++written}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
