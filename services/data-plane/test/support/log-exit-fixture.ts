// Logs three lines through the data plane's log destination (batched: well under its 4 KB and 200 ms),
// then exits at once: by process.exit, or by an uncaught error with "throw". The test reads stdout.
import pino from "pino";
import { logDestination } from "../../src/log-destination";

const log = pino({}, logDestination());
for (let line = 0; line < 3; line++) log.info({ line }, "before exit");
if (process.argv[2] === "throw") {
  setImmediate(() => {
    throw new Error("an uncaught error");
  });
} else {
  process.exit(0);
}
