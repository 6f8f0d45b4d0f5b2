/**
 * What bounds a call: the overall deadline (a server that never answers fails a call within it,
 * not after attempts × timeout), the cap on answer size, a base URL copied with `/v1`, and the
 * key kept out of text in any case and by its secret segment alone.
 */
import { describe, expect, it } from "vitest";
import { NetworkError, TimeoutError } from "../../provider/client";
import { redact, REDACTED } from "../../provider/client/security";
import { ok, useScriptedClients, user } from "./scriptedClients";

const t = useScriptedClients();

describe("limits of one call", () => {
  it("a server that never answers fails the call by the overall deadline, whatever the attempts", async () => {
    const c = t.client({ timeoutMs: 200, deadlineMs: 500, maxAttempts: 10, retryBaseMs: 1, retryMaxDelayMs: 1 });
    const hang = { method: "GET", path: "/v1/users/me", reply: { hang: true } as const };
    t.server.expect(hang, hang, hang, hang, hang, hang, hang, hang, hang, hang);
    const started = performance.now();
    const err = await c.call("GetCurrentUser", {}).catch((e: unknown) => e);
    const took = performance.now() - started;
    expect(err).toBeInstanceOf(TimeoutError);
    // 10 attempts of 200 ms would take 2 s; the deadline ends it after about 500 ms.
    expect(took).toBeLessThan(1500);
    expect(t.server.received.length).toBeLessThan(10);
    t.server.reset(); // the hangs left unused are not a failure of this test
  });

  it("time queued behind the key's own pacer does not count toward the deadline", async () => {
    // 12 calls at 20 requests/s: the last is let go about 550 ms after the first, past a 300 ms
    // deadline that no answer comes near (a run of 4,000 deletes queues 160 s at 25/s).
    const c = t.client({ requestsPerSecond: 20, deadlineMs: 300 });
    const me = { method: "GET", path: "/v1/users/me", reply: ok(user) };
    t.server.expect(...Array.from({ length: 12 }, () => me));
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => c.call("GetCurrentUser", {})));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const at = t.server.received.map((r) => r.at);
    expect(at[11]! - at[0]!).toBeGreaterThan(450);
  });

  it("a timeout cut by the deadline says so", async () => {
    const c = t.client({ timeoutMs: 2000, deadlineMs: 300 });
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: { hang: true } });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/no complete answer within the call's deadline of 300 ms, retries included/);
    t.server.reset();
  });

  it("refuses an answer larger than the cap, without retrying and without reading it whole", async () => {
    const c = t.client({ maxResponseBytes: 10_000 });
    const big = { id: 1, email: "a@example.com", title: "x".repeat(50_000) };
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: ok(big) });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.causeCode).toBe("RA_RESPONSE_TOO_LARGE");
    expect(err.message).toMatch(/more than the API ever sends/);
    expect(c.stats.requests).toBe(1);
  });

  it("a base URL ending in /v1 is read without it (no /v1/v1/...)", async () => {
    const c = t.client({ baseUrl: `${t.server.url}/v1/` });
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: ok(user) });
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    expect(c.baseUrl).toBe(t.server.url);
  });
});

describe("redaction", () => {
  const key = "RVWK.ABCD1234.SECRETSECRETSECRETSECRETSECRET0123456789ABCDEFGHIJKLMNOPQR";
  it("removes the whole key in any case, and its secret segment on its own", () => {
    const secret = key.split(".")[2]!;
    const text = `a ${key} b ${key.toLowerCase()} c ${secret} d ${secret.toLowerCase()} e ABCD1234`;
    const out = redact(text, key);
    expect(out).not.toMatch(new RegExp(secret, "i"));
    expect(out).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED} e ABCD1234`);
  });
});
