// Coalesces draws (debits from budget leases) into Draw calls. While one call
// is in flight, the draws of requests that finish meanwhile wait and go
// together in the next one: a lone draw is sent at once (no added latency when
// quiet), and under load many requests' debits take one gRPC call, which the
// control plane writes in one group commit.
import type { ControlPlaneClientWrapper, DrawCall } from "../control-plane/control-plane-client";

export interface DrawAnswer {
  settled: boolean;
  debitedNano: bigint;
}

interface Pending {
  draw: DrawCall;
  resolve: (answer: DrawAnswer) => void;
  reject: (error: unknown) => void;
}

export class DrawBatcher {
  private queue: Pending[] = [];
  private sending = false;

  constructor(
    private readonly controlPlane: ControlPlaneClientWrapper,
    private readonly maxBatch = 256,
  ) {}

  submit(draw: DrawCall): Promise<DrawAnswer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ draw, resolve, reject });
      if (!this.sending) void this.pump();
    });
  }

  private async pump(): Promise<void> {
    this.sending = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const response = await this.controlPlane.draw(batch.map((entry) => entry.draw));
        batch.forEach((entry, index) => {
          const result = response.results[index];
          if (!result) entry.reject(new Error("the control plane answered fewer draws than were sent"));
          else if (result.outcome === "FAILED") entry.reject(new Error("the control plane could not apply the draw")); // sent again
          else entry.resolve({ settled: result.outcome === "SETTLED", debitedNano: BigInt(result.debitedNano) });
        });
      } catch (error) {
        // Nothing is known of this call: each draw is retried by its request (draws are idempotent).
        for (const entry of batch) entry.reject(error);
      }
    }
    this.sending = false;
  }
}
