/**
 * Client-side pacing: one pacer per API key, shared by every client in the process,
 * because the service counts requests per authenticating user (spec "Limits": 25 requests per
 * second), not per client object.
 *
 * Two rules, both checked before each request leaves:
 *  1. A token bucket (`rate` tokens per second, `capacity` tokens) keeps traffic smooth. With the
 *     default capacity of 1 it simply spaces requests 1/rate apart (40 ms at 25/s), so the
 *     service never sees a burst, whatever algorithm it counts with.
 *  2. A sliding-window log: never more than floor(rate) requests in any WINDOW_MS + MARGIN_MS.
 *     A token bucket alone cannot promise "at most 25 in any one-second window": with capacity
 *     B it allows B + 25 in the first second, and even with B = 1 a request every 40 ms puts 26
 *     requests in a closed one-second window. The log is the hard guarantee, whatever `burst`
 *     the caller picks; the margin absorbs jitter between when a request leaves here and when it
 *     reaches the server (a late request i and a prompt request i+25 must still be a second apart).
 * The cost is a throughput of floor(rate) per 1.05 s instead of per second.
 *
 * Waits run on a Clock (clock.ts): the system clock in use, a manual one in the pacing tests.
 */
import { systemClock, type Clock } from "./clock";

/** The window the service counts requests in. */
const WINDOW_MS = 1000;
/** Extra spacing so that network jitter cannot squeeze floor(rate)+1 arrivals into one window. */
const MARGIN_MS = 50;

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** A FIFO token bucket plus sliding-window log; see the file comment for why both. */
export class RequestPacer {
  #rate: number;
  #capacity: number;
  #tokens: number;
  #refilledAt: number;
  /** Grant times (clock.now()) of the most recent requests, oldest first. */
  #recent: number[] = [];
  #pausedUntil = 0;
  #waiters: Waiter[] = [];
  #timer: unknown;
  readonly #clock: Clock;

  /** `rate` requests per second (> 0); `capacity` tokens the bucket holds (>= 1); waits on `clock`. */
  constructor(rate: number, capacity: number, clock: Clock = systemClock) {
    this.#rate = rate;
    this.#capacity = capacity;
    this.#tokens = capacity;
    this.#clock = clock;
    this.#refilledAt = clock.now();
  }

  /** Requests per second currently enforced. */
  get rate(): number {
    return this.#rate;
  }

  /** Bucket capacity currently enforced. */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * Adopts a stricter rate or capacity if a later client for the same key asks for one: the
   * limit is the service's, per key, so the most careful setting wins. Looser values are ignored.
   */
  tighten(rate: number, capacity: number): void {
    this.#refill(this.#clock.now());
    if (rate < this.#rate) this.#rate = rate;
    if (capacity < this.#capacity) {
      this.#capacity = capacity;
      this.#tokens = Math.min(this.#tokens, capacity);
    }
  }

  /** Holds every request for this key for `ms` (a 429 with Retry-After applies to the whole key). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#clock.now() + ms);
  }

  /** Resolves when one request may be sent; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** Grants waiters in order while both rules allow, then sleeps until the head may go. */
  #pump(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
    while (this.#waiters.length > 0) {
      const now = this.#clock.now();
      const wait = this.#waitMs(now);
      if (wait > 0) {
        // Timers may fire a fraction of a millisecond early; #pump then just re-arms.
        this.#timer = this.#clock.setTimer(() => {
          this.#timer = undefined;
          this.#pump();
        }, Math.ceil(wait));
        return;
      }
      const waiter = this.#waiters.shift()!;
      this.#tokens -= 1;
      this.#recent.push(now);
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve();
    }
  }

  #refill(now: number): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + ((now - this.#refilledAt) * this.#rate) / 1000);
    this.#refilledAt = now;
  }

  /** Milliseconds until the next request may leave (0: now). */
  #waitMs(now: number): number {
    this.#refill(now);
    // A hair of tolerance so floating-point refill does not cost an extra timer round.
    const forToken = this.#tokens >= 1 - 1e-9 ? 0 : ((1 - this.#tokens) * 1000) / this.#rate;

    const perWindow = Math.max(1, Math.floor(this.#rate));
    const span = WINDOW_MS + MARGIN_MS;
    while (this.#recent.length > perWindow) this.#recent.shift();
    // The request that would be the (perWindow+1)th inside one span must wait for the oldest to leave it.
    const forWindow = this.#recent.length === perWindow ? this.#recent[0]! + span - now : 0;

    return Math.max(0, forToken, forWindow, this.#pausedUntil - now);
  }
}

/** One pacer per clock and API key fingerprint (never the key itself), for the whole process. */
// eslint-disable-next-line no-restricted-syntax -- process-wide: the service limits each key, whatever the run; one pacer per key and clock.
const pacers = new WeakMap<Clock, Map<string, RequestPacer>>();

/**
 * The process-wide pacer for a key fingerprint on `clock`, created on first use. A later caller
 * asking for a stricter rate or capacity tightens the shared pacer (see RequestPacer.tighten).
 */
export function pacerFor(keyFingerprint: string, rate: number, capacity: number, clock: Clock = systemClock): RequestPacer {
  let byKey = pacers.get(clock);
  if (!byKey) {
    byKey = new Map();
    pacers.set(clock, byKey);
  }
  let pacer = byKey.get(keyFingerprint);
  if (!pacer) {
    pacer = new RequestPacer(rate, capacity, clock);
    byKey.set(keyFingerprint, pacer);
  } else {
    pacer.tighten(rate, capacity);
  }
  return pacer;
}
