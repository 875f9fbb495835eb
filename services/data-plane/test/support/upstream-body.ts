// An upstream body (src/upstream/upstream-body.ts) that has received `reads` and ended, as undici's
// handler would have fed it: for tests that hand the engine an upstream answer without a connection.
import { UpstreamBody } from "../../src/upstream/upstream-body";

export function bodyOf(reads: readonly Buffer[]): UpstreamBody {
  const body = new UpstreamBody();
  for (const read of reads) body.received(read);
  body.end();
  return body;
}
