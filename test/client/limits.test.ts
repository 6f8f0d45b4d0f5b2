/**
 * What bounds a call: the overall deadline (a server that never answers fails a call within it,
 * not after attempts × timeout), the cap on answer size, a base URL copied with `/v1`, and the
 * key kept out of text in any case and by its secret segment alone.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError, TimeoutError } from "../../provider/client";
import { CLIENT_DEFAULTS } from "../../provider/client/options";
import { DEFAULT_RETRY } from "../../provider/client/retry";
import { redact, REDACTED } from "../../provider/client/security";
import { ManualClock } from "./manualClock";
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

  it("the deadline runs on the client's clock: retry waits on a manual clock use it up, with no real waiting", async () => {
    // Before issue 25 the deadline read performance.now(): waits on a manual clock never reached
    // it, and this call went on to its 10th attempt.
    const clock = new ManualClock();
    const lines: string[] = [];
    const c = t.client({ clock, deadlineMs: 1000, maxAttempts: 10, logger: (l) => lines.push(l) });
    const busy = { status: 503, json: { title: "Busy", status: 503 }, headers: { "retry-after": "0.4" } };
    // Sent at 0, 400 and 800 ms: a fourth 400 ms wait would end past the 1000 ms deadline.
    t.server.expectTimes(3, { method: "GET", path: "/v1/users/me", reply: busy });
    const err = await t.onClock(
      clock,
      c.call("GetCurrentUser", {}).catch((e: unknown) => e),
    );
    expect(err).toMatchObject({ status: 503, attempts: 3 });
    expect(lines.at(-1)).toMatch(/-> 503 in \d+ ms \(attempt 3, deadline\)$/);
    expect(t.server.received.map((r) => r.at)).toEqual([0, 400, 800]);
  });

  it("time queued behind the key's own pacer does not count toward the deadline", async () => {
    // 12 calls at 20 requests/s: the last is let go 550 ms after the first, past a 300 ms
    // deadline that no answer comes near (a run of 4,000 deletes queues 160 s at 25/s).
    const clock = new ManualClock();
    const c = t.client({ requestsPerSecond: 20, deadlineMs: 300, clock });
    const me = { method: "GET", path: "/v1/users/me", reply: ok(user) };
    t.server.expect(...Array.from({ length: 12 }, () => me));
    const results = await t.onClock(clock, Promise.allSettled(Array.from({ length: 12 }, () => c.call("GetCurrentUser", {}))));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const at = t.server.received.map((r) => r.at);
    expect(at[11]! - at[0]!).toBe(550);
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

describe("a server that trickles its answer (a byte at a time, never silent long enough for the idle timeout)", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", etag: '"1"' });
      const timer = setInterval(() => res.write(" "), 20);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fails an API call by its deadline, saying which setting raises it", async () => {
    const c = t.client({ baseUrl: url, timeoutMs: 200, deadlineMs: 500, maxAttempts: 10, retryBaseMs: 1, retryMaxDelayMs: 1 });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(
      /^GetCurrentUser GET \/v1\/users\/me: UND_ERR_TIMEOUT no complete answer within the call's deadline of 500 ms, retries included; reviewadmin:deadlineSeconds \(the client's deadlineMs\) raises it \(after \d attempts\)$/,
    );
  });

  it("fails a part upload by its total time, not only by silence, saying which setting raises it", { timeout: 10_000 }, async () => {
    // Before: a 5-byte part was held 60 s with a 3 s timeout, and would have been held forever.
    const c = t.client({ timeoutMs: 300, maxAttempts: 1 });
    const err = (await c.putPart(`${url}/part/1?sig=x`, Buffer.from("hello")).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(
      "putPart PUT /part/1: UND_ERR_TIMEOUT no complete answer within 301 ms for a part of 5 bytes (1 s per 64 KiB added); " +
        "reviewadmin:requestTimeoutSeconds (the client's timeoutMs) raises it",
    );
  });
});

describe("the defaults", () => {
  it("fail a call to a hung or trickling server within 60 s, and are the values docs/configuration.md states", () => {
    const { timeoutMs, deadlineMs } = CLIENT_DEFAULTS;
    // Each attempt ends by timeoutMs, the waits between them by maxRetryWaitMs, all of it by deadlineMs.
    const longest = Math.min(deadlineMs, DEFAULT_RETRY.maxAttempts * timeoutMs + DEFAULT_RETRY.maxRetryWaitMs);
    expect(longest).toBeLessThanOrEqual(60_000);
    const doc = fs.readFileSync("docs/configuration.md", "utf8");
    expect(doc).toContain(`\`reviewadmin:deadlineSeconds\` (${deadlineMs / 1000} s)`);
    expect(doc).toContain(`\`reviewadmin:requestTimeoutSeconds\` (${timeoutMs / 1000} s)`);
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
