/**
 * The client's pacing (provider/client/pacer.ts). The schedule is checked exactly on a manual
 * clock against the scripted server; then once at the service's real rate, against the emulator
 * enforcing 25 requests/s over loopback HTTP, where the proof is that it never answers 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, ReviewAdminClient } from "../../provider/client";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ManualClock } from "./manualClock";
import { newKey, ok, useScriptedClients, user } from "./scriptedClients";

const t = useScriptedClients();

/** Largest number of times inside any half-open one-second window. */
function busiestSecond(times: number[]): number {
  const at = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < at.length; j++) {
    while (at[j] - at[i] >= 1000) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((x, i) => x - times[i]);
}

const me = { method: "GET", path: "/v1/users/me", reply: ok(user) };

describe("pacing, on a manual clock", () => {
  it("sends a burst of 100 requests at 25/s one every 40 ms, never more than 25 in any one-second window", async () => {
    const clock = new ManualClock();
    const c = t.client({ requestsPerSecond: 25, clock });
    t.server.expectTimes(100, me);
    await t.onClock(clock, Promise.all(Array.from({ length: 100 }, () => c.call("GetCurrentUser", {}))));
    const at = t.server.received.map((r) => r.at);
    expect(at).toHaveLength(100);
    expect(busiestSecond(at)).toBeLessThanOrEqual(25);
    // Smooth, not bursty.
    expect(Math.min(...gaps(at))).toBeGreaterThanOrEqual(40);
    // And no slower than the promise of pacer.ts: 25 per 1.05 s.
    expect(at[99]).toBeLessThanOrEqual(4 * 1050);
  });

  it("keeps the one-second guarantee even when burst lets 25 go back to back", async () => {
    const clock = new ManualClock();
    const c = t.client({ requestsPerSecond: 25, burst: 25, clock });
    t.server.expectTimes(60, me);
    await t.onClock(clock, Promise.all(Array.from({ length: 60 }, () => c.call("GetCurrentUser", {}))));
    const at = t.server.received.map((r) => r.at);
    expect(at.slice(0, 25).every((x) => x === 0)).toBe(true);
    expect(busiestSecond(at)).toBeLessThanOrEqual(25);
  });

  it("shares one pacer between every client of the same key", async () => {
    const clock = new ManualClock();
    const apiKey = newKey();
    const a = t.client({ apiKey, requestsPerSecond: 10, clock });
    const b = t.client({ apiKey, requestsPerSecond: 10, baseUrl: t.server.url + "/", clock });
    t.server.expectTimes(10, me);
    await t.onClock(clock, Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call("GetCurrentUser", {}))));
    // Ten requests at 10/s between them: 100 ms apart, not two at a time.
    const at = t.server.received.map((r) => r.at);
    expect(Math.min(...gaps(at))).toBeGreaterThanOrEqual(100);
    expect(at[9] - at[0]).toBeGreaterThanOrEqual(900);
  });

  it("keeps every client of a key to the lowest rate any asks for, and says so to the one whose rate is not used", async () => {
    const clock = new ManualClock();
    const apiKey = newKey();
    const warnings: string[] = [];
    const fast = t.client({ apiKey, requestsPerSecond: 25, clock, warn: (l) => warnings.push(l) });
    const slow = t.client({ apiKey, requestsPerSecond: 5, clock, warn: (l) => warnings.push(l) });
    const later = t.client({ apiKey, requestsPerSecond: 50, burst: 5, clock, warn: (l) => warnings.push(l) });
    t.server.expectTimes(9, me);
    await t.onClock(clock, Promise.all(Array.from({ length: 9 }, (_, i) => [fast, slow, later][i % 3]!.call("GetCurrentUser", {}))));
    // 5/s between the three: 200 ms apart, the first client slowed by the second.
    expect(Math.min(...gaps(t.server.received.map((r) => r.at)))).toBeGreaterThanOrEqual(200);
    expect([fast, slow, later].map((c) => JSON.parse(JSON.stringify(c)).requestsPerSecond)).toEqual([5, 5, 5]);
    expect(warnings).toEqual([
      "reviewadmin: requestsPerSecond 50 (burst 5) is not used: another client of this API key in this process asked for 5 (burst 1), " +
        "and every client of a key keeps to the lowest asked for.",
    ]);
  });
});

describe("at the service's real rate, against the emulator", () => {
  let emu: RunningEmulator;
  const clients: ReviewAdminClient[] = [];

  beforeAll(async () => {
    // 25 requests per second per account, 429 beyond: the service's limit.
    emu = await startEmulator({ rateLimit: 25 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emu?.close();
  });

  function clientAs(role: string, opts: { requestsPerSecond?: number } = {}): ReviewAdminClient {
    const c = new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys[role], maxAttempts: 1, ...opts });
    clients.push(c);
    return c;
  }

  it("a burst of 60 calls at the default pace all pass, none answered 429", async () => {
    const c = clientAs("member");
    emu.traffic.log.reset();
    const started = performance.now();
    // maxAttempts 1: a single 429 would fail its call.
    await Promise.all(Array.from({ length: 60 }, () => c.call("GetCurrentUser", {})));
    const took = performance.now() - started;
    expect(emu.traffic.log.list().map((e) => e.status)).toEqual(Array(60).fill(200));
    expect(c.stats).toMatchObject({ requests: 60, retries: 0, throttled: 0 });
    // The pacing did wait: 25 per 1.05 s makes two full windows before the 51st request.
    expect(took).toBeGreaterThanOrEqual(2 * 1050);
  });

  it("the same burst unpaced meets 429s: the emulator does enforce the limit the pacer keeps to", async () => {
    const c = clientAs("orgAdmin", { requestsPerSecond: 1000 });
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => c.call("GetCurrentUser", {})));
    const refused = results.filter((r) => r.status === "rejected" && r.reason instanceof ApiError && r.reason.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(c.stats.throttled).toBe(refused.length);
  });
});
