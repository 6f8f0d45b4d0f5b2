/**
 * The retry policy, in one place: which answers are retried, how long to wait, when to stop.
 *
 * - 429 is always retried: the service refused the request, so nothing happened and repeating
 *   it is safe even for a POST that sends an email.
 * - 5xx and connection failures (reset, closed socket, timeout) are retried only for routes
 *   marked `idempotent` in the route table: the first attempt may have taken effect.
 * - Every other status is final. 400, 401, 403, 404 and 422 (and the rest of 4xx) mean the
 *   request itself is wrong, and 501 means the service will never do it; repeating cannot help.
 * - The wait is the server's Retry-After when it sends one, else exponential backoff with full
 *   jitter (a random wait between 0 and base * 2^(n-1), capped), so many clients do not retry
 *   in lockstep.
 * - Two caps end the loop: `maxAttempts` sends, and `maxRetryWaitMs` of total waiting.
 */
import { systemClock, type Clock } from "./clock";

/** Retry settings of one client. */
export interface RetryPolicy {
  /** Sends at most this many times, the first included (>= 1). */
  readonly maxAttempts: number;
  /** Gives up rather than let the waits between attempts add up past this. */
  readonly maxRetryWaitMs: number;
  /** First backoff ceiling; doubles per retry. */
  readonly baseMs: number;
  /** Ceiling of any single backoff wait (Retry-After is honoured as sent, not capped). */
  readonly maxDelayMs: number;
}

/** Defaults: 5 attempts, 60 s total wait, backoff 200 ms doubling up to 10 s. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, maxRetryWaitMs: 60_000, baseMs: 200, maxDelayMs: 10_000 };

/** True when an answer with this status may be sent again (see the file comment). */
export function isRetryableStatus(status: number, idempotent: boolean): boolean {
  if (status === 429) return true;
  if (status >= 500 && status <= 599 && status !== 501) return idempotent;
  return false;
}

/**
 * Reads a Retry-After header: delay-seconds ("3", "0.5") or an HTTP date. Returns milliseconds
 * from `nowMs` (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Full-jitter backoff before retry number `retry` (1 for the first retry). */
export function backoffMs(retry: number, policy: Pick<RetryPolicy, "baseMs" | "maxDelayMs">, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** Waits `ms` on `clock`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimer(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
