/** Cancellation: an AbortSignal ends a call wherever it waits, with the caller's own reason. */
import { describe, expect, it } from "vitest";
import { ManualClock, until } from "./manualClock";
import { ok, useScriptedClients, user } from "./scriptedClients";

const t = useScriptedClients();

describe("cancellation", () => {
  it("aborts a request in flight, long before the timeout", async () => {
    const c = t.client({ timeoutMs: 5000 });
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: { hang: true } });
    const ac = new AbortController();
    const call = c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    await until(() => t.server.received.length === 1, "the request is in flight");
    const started = performance.now();
    ac.abort();
    const err = await call;
    expect((err as Error).name).toBe("AbortError"); // the caller's reason, not a client error
    // Without the abort the call would end only at the 5 s timeout.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("aborts during a backoff wait", async () => {
    const clock = new ManualClock();
    const c = t.client({ clock });
    t.server.expect({
      method: "GET",
      path: "/v1/users/me",
      reply: { status: 503, json: { title: "Busy", status: 503 }, headers: { "retry-after": "10" } },
    });
    const ac = new AbortController();
    const call = c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    await until(() => clock.pending === 1, "the client waits to retry");
    ac.abort();
    expect(((await call) as Error).name).toBe("AbortError");
    expect(clock.now()).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it("aborts while waiting for the pacer, sending nothing", async () => {
    const clock = new ManualClock();
    const c = t.client({ requestsPerSecond: 1, clock });
    t.server.expect({ method: "GET", path: "/v1/users/me", reply: ok(user) });
    await c.call("GetCurrentUser", {});
    const ac = new AbortController();
    const call = c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    await until(() => clock.pending === 1, "the second call waits for the pacer");
    ac.abort();
    expect(((await call) as Error).name).toBe("AbortError");
    expect(t.server.received).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const c = t.client();
    const err = await c.call("GetCurrentUser", {}, undefined, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(t.server.received).toEqual([]);
  });
});
