/**
 * What happens to traffic before a handler sees it: rate limits, injected faults, and the
 * request log with its counters. Plain classes with no HTTP, driven by server.ts and tuned by
 * the control API. Rate limits count real time (performance.now) unless given another source,
 * never the emulator's clock: advancing that a month must not refill a bucket. Tests give them
 * a hand-moved clock (startEmulator's `rateLimitClock`) to refill a bucket without waiting.
 */
import { prng } from "./model/random";

// ---------------------------------------------------------------------------------------------
// Rate limits
// ---------------------------------------------------------------------------------------------

/**
 * Token buckets keyed by account (an API account, or a client address for failed
 * authentication): each holds up to `perSecond` tokens and refills at `perSecond` per second,
 * so at most `perSecond` requests pass in any one second. A limit of 0 or Infinity turns it off.
 */
export class AccountRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** `now` is the millisecond source buckets refill by (default: real time). */
  constructor(
    public perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** False when the limit is 0 or Infinity (every request passes). */
  get enabled(): boolean {
    return this.perSecond > 0 && Number.isFinite(this.perSecond);
  }

  /** Takes a token for `account`: 0 when the request may pass, else the seconds to wait (at least 1). */
  take(account: string, now = this.now()): number {
    if (!this.enabled) return 0;
    const bucket = this.buckets.get(account) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(account, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    // Retry-After is in whole seconds; round up so a retry at that time succeeds.
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Changes the limit and forgets every bucket. */
  set(perSecond: number): void {
    this.perSecond = perSecond;
    this.buckets.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

/** One injected fault: an error status, or a dropped connection before or after the handler ran. */
export interface FaultRule {
  status?: 429 | 500 | 503;
  /** "before": close the socket without running the handler; "after": run it (state changes), then close. */
  drop?: "before" | "after";
  /** Retry-After seconds sent with a 429 (default 1). */
  retryAfter?: number;
}

/** The fault configuration (POST /_emulator/faults). */
export interface FaultConfig {
  /** Milliseconds added to every API request. */
  latencyMs?: number;
  /** Probability (0..1) per request of each fault; drop means "before". */
  rates?: { "429"?: number; "500"?: number; "503"?: number; drop?: number };
  /** Faults for the next matching requests, one each, in order; then the rates apply again. */
  script?: FaultRule[];
  /** Only these operation ids are affected (default: every API and upload request). */
  operations?: string[];
  /** Seed of the random draws, so a run with rates is reproducible (default 1). */
  seed?: number;
}

/** Decides, request by request, which fault (if any) to inject. */
export class FaultInjector {
  config: FaultConfig = {};
  private random = prng(1);

  /** Replaces the configuration. */
  set(config: FaultConfig): void {
    this.config = { ...config, script: [...(config.script ?? [])] };
    this.random = prng(config.seed ?? 1);
  }

  /** Removes every fault. */
  clear(): void {
    this.set({});
  }

  /** Added latency for this operation, in milliseconds. */
  latencyFor(operation: string): number {
    return this.applies(operation) ? (this.config.latencyMs ?? 0) : 0;
  }

  /** The fault for the next request of this operation, if any. */
  next(operation: string): FaultRule | undefined {
    if (!this.applies(operation)) return undefined;
    const scripted = this.config.script?.shift();
    if (scripted) return scripted;
    const rates = this.config.rates;
    if (!rates) return undefined;
    const r = this.random();
    let edge = 0;
    for (const [name, p] of Object.entries(rates)) {
      edge += p ?? 0;
      if (r < edge) return name === "drop" ? { drop: "before" } : { status: Number(name) as 429 | 500 | 503 };
    }
    return undefined;
  }

  private applies(operation: string): boolean {
    const ops = this.config.operations;
    return !ops || ops.length === 0 || ops.includes(operation);
  }
}

// ---------------------------------------------------------------------------------------------
// Request log and counters
// ---------------------------------------------------------------------------------------------

/** One logged request (control API requests are not logged). */
export interface LogEntry {
  seq: number;
  /** ISO 8601, real time. */
  time: string;
  method: string;
  /** Path and query as received. */
  path: string;
  /** Operation id, raw route name, or null for an unknown path. */
  operation: string | null;
  status: number;
  /** Rate-limit account of the caller, null when unauthenticated. */
  account: string | null;
  durationMs: number;
}

/** A finished request as the server reports it: a LogEntry before the log numbers and dates it. */
export type RequestRecord = Omit<LogEntry, "seq" | "time">;

/** Request counts, total and per operation, each split by status. */
export interface Counters {
  total: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, { total: number; byStatus: Record<string, number> }>;
}

/** The request log (last `capacity` entries) and counters (since the last reset). */
export class RequestLog {
  private entries: LogEntry[] = [];
  private seq = 0;
  counters: Counters = { total: 0, byStatus: {}, byOperation: {} };

  constructor(readonly capacity = 10_000) {}

  /** Records a finished request. */
  record(entry: RequestRecord): void {
    const full: LogEntry = { seq: ++this.seq, time: new Date().toISOString(), ...entry };
    this.entries.push(full);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    const status = String(entry.status);
    const c = this.counters;
    c.total++;
    c.byStatus[status] = (c.byStatus[status] ?? 0) + 1;
    const op = entry.operation ?? "(unknown)";
    const perOp = (c.byOperation[op] ??= { total: 0, byStatus: {} });
    perOp.total++;
    perOp.byStatus[status] = (perOp.byStatus[status] ?? 0) + 1;
  }

  /** Logged entries, oldest first, optionally only one operation's. */
  list(operation?: string): LogEntry[] {
    return operation ? this.entries.filter((e) => e.operation === operation) : [...this.entries];
  }

  /** Forgets entries and counters. */
  reset(): void {
    this.entries = [];
    this.counters = { total: 0, byStatus: {}, byOperation: {} };
  }
}

/** Everything server.ts consults for each request, tuned by the control API. */
export class Traffic {
  /** Ordinary requests: per authenticated account (spec: 25 per second per user account). */
  readonly rateLimiter: AccountRateLimit;
  /** Failed authentication: per client address, stricter than ordinary traffic (spec, Authentication 8). */
  readonly authFailureLimiter: AccountRateLimit;
  readonly faults = new FaultInjector();
  readonly log = new RequestLog();
  #active = 0;
  #idleWaiters: (() => void)[] = [];

  /** Limits per second (0 or Infinity: off); `now` is the millisecond source of both limits (default: real time). */
  constructor(rateLimit: number, authFailureLimit: number, now?: () => number) {
    this.rateLimiter = new AccountRateLimit(rateLimit, now);
    this.authFailureLimiter = new AccountRateLimit(authFailureLimit, now);
  }

  /** Requests received and not yet answered (or dropped); the control API's own not counted. */
  get active(): number {
    return this.#active;
  }

  /** Called by the server as a request arrives; `ended` once it is answered or dropped. */
  began(): void {
    this.#active++;
  }

  /** See began. */
  ended(): void {
    if (--this.#active > 0) return;
    const waiters = this.#idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  /**
   * Resolves once no request is being handled: a test that killed a client mid-request waits for
   * what the server still holds to land (or fail), rather than for a guessed time.
   */
  idle(): Promise<void> {
    return this.#active === 0 ? Promise.resolve() : new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}
