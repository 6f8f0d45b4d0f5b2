/**
 * The emulator's clock: what "now" is for invitation expiry, billing months, event timestamps
 * and upload processing. It is a source of unix milliseconds plus an offset that tests and the
 * control API advance, to expire an invitation or cross a month without waiting.
 */

/** What startEmulator's `clock` option takes: a start instant, or a function returning unix ms. */
export type ClockOption = Date | number | (() => number);

/** Unix milliseconds by a source (real time by default) plus an offset that only moves when told. */
export class Clock {
  /** Added to the source; persisted with the world. */
  offsetMs = 0;
  private readonly source: () => number;

  constructor(option?: ClockOption) {
    if (typeof option === "function") {
      this.source = option;
    } else if (option !== undefined) {
      // A start instant: time then runs forward at real speed from there.
      const start = option instanceof Date ? option.getTime() : option;
      const realStart = Date.now();
      this.source = () => start + (Date.now() - realStart);
    } else {
      this.source = Date.now;
    }
  }

  /** Unix milliseconds now, by the emulator's clock. */
  now(): number {
    return this.source() + this.offsetMs;
  }

  /** Now as ISO 8601 UTC. */
  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves the clock forward (or back, with a negative amount). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
