// The control plane's notion of now. Money days and hold expiry read it, so
// tests can move it (e.g. across midnight UTC) without touching the machine clock.
export interface Clock {
  now(): Date;
}

export const offsetClock = (offsetMs: number): Clock => ({ now: () => new Date(Date.now() + offsetMs) });

/** The UTC calendar day of a moment, as YYYY-MM-DD. */
export const utcDay = (moment: Date): string => moment.toISOString().slice(0, 10);

/** Whole seconds from a moment to the next 00:00 UTC (at least 1). */
export function secondsToNextUtcMidnight(moment: Date): number {
  const next = Date.UTC(moment.getUTCFullYear(), moment.getUTCMonth(), moment.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - moment.getTime()) / 1000));
}
