// A native stream's opening events (Responses' created/in_progress, Anthropic's
// message_start/ping), held until the first content event: until then nothing
// has reached the client, so an upstream failing right after its opening is
// retried elsewhere and not billed. What is held is capped (an upstream that
// pings without end would grow it): held-budget.ts.
import { HeldBudget } from "./held-budget";

export class HeldOpening {
  private frames: string | undefined = "";

  private readonly budget: HeldBudget;

  /** @param maxLength the most held, in characters of the frames (UPSTREAM_MAX_BODY_BYTES). */
  constructor(maxLength?: number) {
    this.budget = new HeldBudget(maxLength);
  }

  /** Still holding: nothing has been released. */
  get holding(): boolean {
    return this.frames !== undefined;
  }

  hold(frame: string): void {
    this.budget.take(frame.length);
    this.frames += frame;
  }

  /** The held frames, once; "" afterwards. */
  release(): string {
    const frames = this.frames ?? "";
    this.frames = undefined;
    return frames;
  }
}
