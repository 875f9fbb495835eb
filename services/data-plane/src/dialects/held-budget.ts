// What a stream renderer holds of an answer until it can write it (a native
// stream's opening, a translation's whole output or tool call) grows with the
// answer, and a stream has no size cap of its own: this counts it against
// UPSTREAM_MAX_BODY_BYTES. Past it, UpstreamBodyTooLarge: before anything
// reached the client the caller gets 502, after it the stream ends as broken.
import { UpstreamBodyTooLarge } from "../upstream/body-limit";

export class HeldBudget {
  private held = 0;

  /** @param maxLength the most held, in characters; unbounded when unset. */
  constructor(private readonly maxLength = Number.POSITIVE_INFINITY) {}

  /** `length` more characters are held; throws once the total passes the cap. */
  take(length: number): void {
    this.held += length;
    if (this.held > this.maxLength) throw new UpstreamBodyTooLarge(this.maxLength);
  }
}
