// A native stream's opening events (Responses' created/in_progress, Anthropic's
// message_start/ping), held until the first content event: until then nothing
// has reached the client, so an upstream failing right after its opening is
// retried elsewhere and not billed.
export class HeldOpening {
  private frames: string | undefined = "";

  /** Still holding: nothing has been released. */
  get holding(): boolean {
    return this.frames !== undefined;
  }

  hold(frame: string): void {
    this.frames += frame;
  }

  /** The held frames, once; "" afterwards. */
  release(): string {
    const frames = this.frames ?? "";
    this.frames = undefined;
    return frames;
  }
}
