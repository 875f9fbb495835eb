// Where a benchmark leaves its figures: pretty JSON at the path given (its directory made), and a line saying so.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export function writeResults(file: string, output: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  console.log(`results: ${path.relative(process.cwd(), file)}`);
}
