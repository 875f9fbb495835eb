// Preloaded into the data plane by json-cost.ts (NODE_OPTIONS="--import <this file>"): wraps JSON.parse and
// JSON.stringify to count, per call site (the first caller frame outside this file), the calls, the characters
// in or out and the time inside them. A CPU profile cannot show this: V8 folds the builtins into their callers.
// SIGUSR2 writes what was counted since the last signal to $BENCH_JSON_COUNT_FILE and starts counting afresh.
// Plain JavaScript: it loads before tsx. The wrapping costs time outside the calls, never inside what is timed.
import { writeFileSync } from "node:fs";

const file = process.env.BENCH_JSON_COUNT_FILE;
if (file) {
  let sites = new Map();
  const siteOf = () => {
    const stack = new Error().stack.split("\n");
    // [0] "Error", [1] siteOf, [2] count, [3] the wrapper, [4] its caller.
    return (stack[4] ?? "")
      .trim()
      .replace(/^at /, "")
      .replace(/\(?file:\/\/.*\/(services|proto|node_modules)\//, "$1/");
  };
  const count = (kind, chars, nanos) => {
    const key = `${kind} ${siteOf()}`;
    const site = sites.get(key) ?? { calls: 0, chars: 0, nanos: 0 };
    site.calls++;
    site.chars += chars;
    site.nanos += nanos;
    sites.set(key, site);
  };
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  JSON.parse = function countedParse(text, reviver) {
    const started = process.hrtime.bigint();
    const value = parse(text, reviver);
    const nanos = Number(process.hrtime.bigint() - started);
    count("parse", typeof text === "string" ? text.length : 0, nanos);
    return value;
  };
  JSON.stringify = function countedStringify(value, replacer, space) {
    const started = process.hrtime.bigint();
    const text = stringify(value, replacer, space);
    const nanos = Number(process.hrtime.bigint() - started);
    count("stringify", typeof text === "string" ? text.length : 0, nanos);
    return text;
  };
  process.on("SIGUSR2", () => {
    writeFileSync(file, stringify(Object.fromEntries(sites)));
    sites = new Map();
  });
}
