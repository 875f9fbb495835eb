// Coalesces draws (debits from budget leases) into Draw calls (CallCoalescer):
// many requests' debits take one gRPC call, which the control plane writes in
// one group commit. Answers do not wait for their draw (request-billing.ts),
// so calls go at most every `intervalMs`, with all the draws gathered since;
// when one does wait (`hurry`), the draws queued go as soon as they can.
// Traced, a call is the child of its first traced draw and links the others' (docs/tracing.md).
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import { CallCoalescer, type Receiver } from "../call-coalescer";
import type { ControlPlaneClientWrapper, DrawCall } from "../control-plane/control-plane-client";

export interface DrawAnswer {
  settled: boolean;
  debitedNano: bigint;
}

export interface TracedDraw {
  draw: DrawCall;
  /** The request's draw span; absent with tracing off. */
  span?: TraceSpan;
}

export class DrawBatcher {
  private readonly calls: CallCoalescer<TracedDraw, DrawAnswer>;

  constructor(controlPlane: Pick<ControlPlaneClientWrapper, "draw">, intervalMs: number, maxBatch = 256) {
    this.calls = new CallCoalescer(
      async (items) => {
        // Sampled spans first: the call's parent is a recorded span when there is one, and only those are linked.
        const traced = items.flatMap((item) => (item.span && item.span !== NO_SPAN ? [item.span] : []));
        const spans = [...traced.filter((span) => span.recording), ...traced.filter((span) => !span.recording).slice(0, 1)];
        const response = await controlPlane.draw(
          items.map((item) => item.draw),
          spans,
        );
        return response.results.map((result) =>
          // FAILED: this draw alone could not be applied; its request sends it again (draws are idempotent).
          result.outcome === "FAILED"
            ? new Error("the control plane could not apply the draw")
            : { settled: result.outcome === "SETTLED", debitedNano: BigInt(result.debitedNano) },
        );
      },
      maxBatch,
      intervalMs,
    );
  }

  submit(draw: DrawCall, span?: TraceSpan): Promise<DrawAnswer> {
    return this.calls.submit({ draw, span });
  }

  /** As submit, the answer told to `receiver` (draw-in-flight.ts), which is also the item sent. */
  send(traced: TracedDraw & Receiver<DrawAnswer>): void {
    this.calls.send(traced, traced);
  }

  /** An answer waits for a draw already submitted: the queued draws go without waiting for the interval. */
  hurry(): void {
    this.calls.hurry();
  }
}
