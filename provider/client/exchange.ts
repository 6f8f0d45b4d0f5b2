/**
 * One exchange: a request sent until it succeeds, fails for good, or a cap or the deadline ends
 * it, as undici keeps its RetryHandler apart from the client. What is retried and how long to
 * wait is retry.ts's policy; this file is the loop that applies it, and the wording of a network
 * failure or timeout at its end.
 *
 * The call's deadline is measured on the client's Clock, like the pacer's and the retries' waits,
 * so a test on a manual clock drives all three. One attempt's own time limit stays on the socket
 * (transport.ts): it is about the wire, not the schedule.
 */
import type { Pool } from "undici";
import { apiErrorOf } from "./answers";
import { type Clock } from "./clock";
import { NetworkError, TimeoutError, type RequestContext } from "./errors";
import { type RequestPacer } from "./pacer";
import { backoffMs, isRetryableStatus, parseRetryAfter, sleep, type RetryPolicy } from "./retry";
import { type KeyScrubber } from "./security";
import { send, WireFailure, type WireBody, type WireResponse } from "./transport";

/** What one exchange (a request and its retries) needs to know. */
export interface Exchange {
  ctx: RequestContext;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  /** Makes the body for one attempt (FormData and strings can be sent again; a stream cannot). */
  body?: () => WireBody;
  /** May be sent again after a 5xx or a connection failure. */
  idempotent: boolean;
  /** The body can be read only once (a stream): nothing is retried, not even a 429. */
  sendOnce: boolean;
  /** Waits for the key's pacer (API calls do; part uploads go to storage without the key). */
  paced: boolean;
  /** Longest time for one attempt, the answer read in full. */
  attemptMs: number;
  /** Longest time for the whole exchange, retries and waits included (time queued behind the pacer not). */
  callMs: number;
  /** For a part upload: its size, which adds to both limits (its time grows with size). */
  partBytes?: number;
  signal?: AbortSignal;
}

/** What the loop takes from its client: settings, the key's pacer, and where it reports. */
export interface ExchangeHost {
  readonly retry: RetryPolicy;
  /** The client's timeoutMs: the longest silence of any attempt. */
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly clock: Clock;
  readonly pacer: RequestPacer;
  readonly scrubber: KeyScrubber;
  /** Throws once the client is closed, so a closed client sends no retry. */
  assertOpen(): void;
  /** One debug line, key not included. */
  log(line: string): void;
  /** Counts a request sent, a retry, or a 429, for the client's stats. */
  tally(event: "request" | "retry" | "throttled", operationId: string): void;
}

/** Sends until a 2xx (returned), a final failure (thrown), or a cap is reached (the last failure thrown). */
export async function exchange(ex: Exchange, host: ExchangeHost): Promise<WireResponse> {
  const { ctx, signal } = ex;
  const { clock, retry } = host;
  const label = `${ctx.operationId} ${ctx.method} ${ctx.path}`;
  let waited = 0;
  const callStarted = clock.now();
  // Time queued behind this key's own pacer is not the service being slow (4,000 deletes in one
  // run queue up to 160 s at 25 requests/s), so the deadline does not count it.
  let queuedMs = 0;
  // Every exchange ends by its deadline, whatever the retries.
  const remaining = () => ex.callMs - (clock.now() - callStarted - queuedMs);
  for (let attempt = 1; ; attempt++) {
    host.assertOpen();
    if (ex.paced) {
      const queued = clock.now();
      await host.pacer.acquire(signal);
      queuedMs += clock.now() - queued;
    } else if (signal?.aborted) throw signal.reason;
    host.tally("request", ctx.operationId);

    // What an attempt took is wire time, for the log: real time, like the socket's own limits.
    const started = performance.now();
    let res: WireResponse | undefined;
    let failure: WireFailure | undefined;
    const attemptMs = Math.max(1, Math.ceil(Math.min(ex.attemptMs, remaining())));
    try {
      res = await send(ex.pool, {
        path: ex.path,
        method: ctx.method,
        headers: ex.headers,
        body: ex.body?.(),
        signal,
        attemptMs,
        idleTimeoutMs: host.timeoutMs,
        maxResponseBytes: host.maxResponseBytes,
      });
    } catch (err) {
      if (!(err instanceof WireFailure)) throw err;
      failure = err;
    }
    const took = Math.round(performance.now() - started);

    if (res && res.status >= 200 && res.status < 300) {
      host.log(`${label} -> ${res.status} in ${took} ms (attempt ${attempt})`);
      return res;
    }

    const outcome = res ? String(res.status) : failure!.code;
    if (res?.status === 429) host.tally("throttled", ctx.operationId);
    const retryable = !ex.sendOnce && (res ? isRetryableStatus(res.status, ex.idempotent) : ex.idempotent && !failure!.final);
    const retryAfter = res ? parseRetryAfter(res.headers["retry-after"]) : undefined;
    const wait = retryAfter ?? backoffMs(attempt, retry);
    const giveUpBecause = !retryable
      ? "final"
      : attempt >= retry.maxAttempts
        ? "attempt cap"
        : waited + wait > retry.maxRetryWaitMs
          ? "wait cap"
          : wait >= remaining()
            ? "deadline"
            : undefined;
    if (giveUpBecause) {
      host.log(`${label} -> ${outcome} in ${took} ms (attempt ${attempt}, ${giveUpBecause})`);
      throw res ? apiErrorOf(ctx, res, attempt, host.scrubber) : networkError(ex, host, failure!, attempt, attemptMs < ex.attemptMs);
    }

    // A 429's Retry-After is about the key, not this request: hold every request of the key.
    if (res?.status === 429 && retryAfter !== undefined) host.pacer.pauseFor(retryAfter);
    host.log(`${label} -> ${outcome} in ${took} ms (attempt ${attempt}); retrying in ${wait} ms`);
    host.tally("retry", ctx.operationId);
    waited += wait;
    await sleep(wait, signal, clock);
  }
}

/** Which limit ended an exchange that timed out, and which setting raises it. */
function timeoutText(ex: Exchange, host: ExchangeHost, failure: WireFailure, byDeadline: boolean): string {
  if (byDeadline) {
    return `no complete answer within the call's deadline of ${ex.callMs} ms, retries included; reviewadmin:deadlineSeconds (the client's deadlineMs) raises it`;
  }
  const raise = "reviewadmin:requestTimeoutSeconds (the client's timeoutMs) raises it";
  // undici's own timeouts are silences; UND_ERR_TIMEOUT is the attempt's total time running out.
  if (failure.code !== "UND_ERR_TIMEOUT") return `no data for ${host.timeoutMs} ms; ${raise}`;
  const part = ex.partBytes === undefined ? "" : ` for a part of ${ex.partBytes} bytes (1 s per 64 KiB added)`;
  return `no complete answer within ${ex.attemptMs} ms${part}; ${raise}`;
}

/** `byDeadline`: the attempt was cut short by the exchange's deadline rather than by the request timeout. */
function networkError(ex: Exchange, host: ExchangeHost, failure: WireFailure, attempts: number, byDeadline: boolean): NetworkError {
  const { ctx } = ex;
  if (failure.timedOut)
    return new TimeoutError(ctx, byDeadline ? ex.callMs : ex.attemptMs, attempts, timeoutText(ex, host, failure, byDeadline));
  const message = host.scrubber.text(failure.message);
  const cause = Object.assign(new Error(message), { name: "WireFailure", code: failure.code });
  return new NetworkError(ctx, failure.code, message, attempts, cause);
}
