/**
 * The time source of the client's schedule (pacing, backoff, and the call's deadline that bounds
 * them): the system clock in use, a manual one in tests, so all three can be checked without
 * waiting real seconds. One attempt's own time limits are not on it: they belong to the socket.
 */

/** Reads time and schedules one-shot timers. */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences matter. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the handle is for clearTimer. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** performance.now() and setTimeout: the default of every client. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
