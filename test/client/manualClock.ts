/**
 * A clock the test moves by hand (provider/client/clock.ts): time stands still until next() or
 * advance(), so pacing and retry waits are checked exactly, without waiting real seconds.
 */
import type { Clock } from "../../provider/client";

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #now = 0;
  #lastId = 0;
  readonly #timers = new Map<number, Timer>();

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const id = ++this.#lastId;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimer(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves to the earliest timer and fires it; false when none is set. */
  next(): boolean {
    const first = this.#earliest();
    if (!first) return false;
    this.#fire(first);
    return true;
  }

  /** Moves `ms` forward, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (let t = this.#earliest(); t && t.at <= until; t = this.#earliest()) this.#fire(t);
    this.#now = until;
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers.values()) if (!best || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    return best;
  }

  #fire(t: Timer): void {
    this.#timers.delete(t.id);
    this.#now = Math.max(this.#now, t.at);
    t.fn();
  }
}

/** Lets real I/O (sockets, their callbacks) make progress. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * Waits until `done()` holds, letting real I/O run; fails after `limitMs` of real time so a broken
 * test ends rather than hangs. What is awaited is an event, never a duration.
 */
export async function until(done: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > limitMs) throw new Error(`timed out waiting until ${what}`);
    await tick();
  }
}
