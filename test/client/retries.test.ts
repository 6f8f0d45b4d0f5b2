/**
 * The retry policy (provider/client/retry.ts) as the client applies it: what is retried, what
 * never is, and the two caps. Waits that matter run on a manual clock.
 */
import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, parseRetryAfter, TimeoutError } from "../../provider/client";
import { ManualClock } from "./manualClock";
import { invitation, ok, useScriptedClients, user } from "./scriptedClients";

const t = useScriptedClients();

describe("retries", () => {
  it("retries a 429, honouring Retry-After in seconds", async () => {
    const clock = new ManualClock();
    const c = t.client({ clock });
    t.server.expect(
      {
        method: "GET",
        path: "/v1/users/me",
        reply: { status: 429, json: { title: "Too Many Requests", status: 429 }, headers: { "retry-after": "1" } },
      },
      { method: "GET", path: "/v1/users/me", reply: ok(user) },
    );
    expect(await t.onClock(clock, c.call("GetCurrentUser", {}))).toMatchObject({ id: 1 });
    const [first, second] = t.server.received;
    expect(second.at - first.at).toBe(1000);
    expect(c.stats).toMatchObject({ requests: 2, retries: 1, throttled: 1 });
  });

  it("retries a 429 without Retry-After with backoff, even on a non-idempotent POST", async () => {
    const c = t.client();
    const resend = { method: "POST", path: "/v1/organizations/1/invitations/resend" };
    t.server.expect(
      { ...resend, reply: { status: 429, json: { title: "Too Many Requests", status: 429 } } },
      { ...resend, reply: ok(invitation) },
    );
    expect(await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" })).toMatchObject({
      email: "a@example.com",
    });
    expect(c.stats).toMatchObject({ requests: 2, retries: 1, throttled: 1 });
  });

  it("retries a 503 on a GET", async () => {
    const c = t.client();
    t.server.expect(
      { method: "GET", path: "/v1/users/me", reply: { status: 503, json: { title: "Maintenance", status: 503 } } },
      { method: "GET", path: "/v1/users/me", reply: ok(user) },
    );
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    expect(c.stats.retries).toBe(1);
  });

  it("retries a reset connection on a GET", async () => {
    const c = t.client();
    t.server.expect(
      { method: "GET", path: "/v1/users/me", reply: { reset: true } },
      { method: "GET", path: "/v1/users/me", reply: ok(user) },
    );
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    expect(c.stats.retries).toBe(1);
  });

  it("does not retry a 503 or a reset connection on a non-idempotent POST", async () => {
    const c = t.client();
    const resend = { method: "POST", path: "/v1/organizations/1/invitations/resend" };
    t.server.expect(
      { ...resend, reply: { status: 503, json: { title: "Unavailable", status: 503 } } },
      { ...resend, reply: { reset: true } },
    );
    const err = (await c
      .call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, attempts: 1 });
    const net = await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" }).catch((e: unknown) => e);
    expect(net).toBeInstanceOf(NetworkError);
    expect(net).toMatchObject({ code: "RA_ERR_NETWORK", attempts: 1 });
    expect(t.server.received).toHaveLength(2);
  });

  it("never retries 400, 401, 403, 404 or 422", async () => {
    const c = t.client();
    for (const status of [400, 401, 403, 404, 422]) {
      t.server.expect({ method: "GET", path: "/v1/users/me", reply: { status, json: { title: `status ${status}`, status } } });
      const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
      expect(err).toMatchObject({ status, attempts: 1 });
    }
    expect(t.server.received).toHaveLength(5);
    expect(c.stats.retries).toBe(0);
  });

  it("stops at maxAttempts and says how many", async () => {
    const c = t.client({ maxAttempts: 3 });
    t.server.expectTimes(3, { method: "GET", path: "/v1/users/me", reply: { status: 503, json: { title: "Unavailable", status: 503 } } });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
    expect(err.attempts).toBe(3);
    expect(err.message).toBe("GetCurrentUser GET /v1/users/me: 503 Unavailable (after 3 attempts)");
    expect(c.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it("stops when the waits would pass maxRetryWaitMs", async () => {
    const clock = new ManualClock();
    const c = t.client({ maxRetryWaitMs: 500, clock });
    const busy = { status: 503, json: { title: "Busy", status: 503 }, headers: { "retry-after": "0.3" } };
    // 300 ms waited after the first answer; another 300 would make 600 > 500: give up after two.
    t.server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: busy });
    expect(
      await t.onClock(
        clock,
        c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      ),
    ).toMatchObject({ status: 503, attempts: 2 });
    expect(clock.now()).toBe(300);
    // A Retry-After longer than the whole budget ends it at once.
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: { ...busy, headers: { "retry-after": "3600" } } });
    const before = clock.now();
    expect(
      await t.onClock(
        clock,
        c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      ),
    ).toMatchObject({ status: 503, attempts: 1 });
    // No retry wait: at most the pacer's 1 ms spacing at 1000 requests/s.
    expect(clock.now() - before).toBeLessThanOrEqual(1);
  });

  it("gives up on connection failures with a NetworkError carrying the low-level code", async () => {
    const c = t.client({ maxAttempts: 2 });
    t.server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: { reset: true } });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: "RA_ERR_NETWORK", attempts: 2, operationId: "GetCurrentUser" });
    expect(err.causeCode).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/);
    expect(err.message).toMatch(/^GetCurrentUser GET \/v1\/users\/me: \S+ .* \(after 2 attempts\)$/);
  });

  it("times out a silent server, retrying idempotent routes", async () => {
    const c = t.client({ maxAttempts: 2, timeoutMs: 150 });
    t.server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: { hang: true } });
    const err = await c.call("GetCurrentUser", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: "RA_ERR_TIMEOUT", attempts: 2 });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Mon, 31 Dec 2029 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
