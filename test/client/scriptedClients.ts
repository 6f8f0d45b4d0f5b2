/**
 * The prelude of the client tests: a scripted loopback server per file (test/support/
 * scriptedServer.ts, which answers 599 to anything unexpected and fails the test), clients with
 * fast test settings that are closed after each test, and a driver for a manual clock.
 */
import { randomInt } from "node:crypto";
import { afterEach } from "vitest";
import { drawApiKey } from "../../contract/apiKey";
import { ReviewAdminClient, type ClientOptions } from "../../provider/client";
import { useScriptedServer, type ScriptedServer } from "../support/scriptedServer";
import { tick, type ManualClock } from "./manualClock";

/** A fresh key in the service's shape (contract/apiKey.ts), so every client gets its own pacer. */
export function newKey(): string {
  return drawApiKey("RVWK", () => randomInt(2 ** 32) / 2 ** 32);
}

export const db = (id: number) => ({ id, name: `db${id}`, orgAdminAccess: true, owningOrganizationId: 1 });
export const user = { id: 1, email: "a@example.com" };
export const event = (id: number) => ({
  id,
  timestamp: 1_700_000_000_000 + id,
  type: "LOGIN",
  userId: 1,
  organizationId: 1,
  description: null,
  data: null,
});
export const invitation = {
  email: "a@example.com",
  expiration: "2030-01-01T00:00:00Z",
  expired: false,
  organizationId: 1,
  organizationPermissions: [],
};
export const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({ status: 200, json: { data, ...extra } });

export interface ScriptedClients {
  readonly server: ScriptedServer;
  /** A client on the scripted server: a fresh key, 1000 requests/s, 5-20 ms backoff, 2 s timeout. */
  client(overrides?: Partial<ClientOptions>): ReviewAdminClient;
  /** Closes `c` after the test (for clients made elsewhere, e.g. by getClient). */
  track(c: ReviewAdminClient): ReviewAdminClient;
  /** The key `c` was made with, to look for it in printouts. */
  keyOf(c: ReviewAdminClient): string;
  /**
   * Runs `work` to its end with time on `clock`: whenever every request sent so far has reached
   * the server, time jumps to the next timer (a pacer grant, a retry wait). So `Received.at`
   * (stamped on `clock`) is the exact time each request was let go.
   */
  onClock<T>(clock: ManualClock, work: Promise<T>): Promise<T>;
}

/** Registers the hooks of a client test file and returns its helpers. */
export function useScriptedClients(): ScriptedClients {
  const ctx = useScriptedServer();
  const clients: ReviewAdminClient[] = [];
  const keys = new WeakMap<ReviewAdminClient, string>();

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  const track = (c: ReviewAdminClient) => {
    clients.push(c);
    return c;
  };
  return {
    get server() {
      return ctx.server;
    },
    client(overrides = {}) {
      const opts: ClientOptions = {
        baseUrl: ctx.server.url,
        apiKey: newKey(),
        requestsPerSecond: 1000,
        retryBaseMs: 5,
        retryMaxDelayMs: 20,
        timeoutMs: 2000,
        ...overrides,
      };
      const c = track(new ReviewAdminClient(opts));
      keys.set(c, opts.apiKey);
      return c;
    },
    track,
    keyOf: (c) => keys.get(c)!,
    async onClock(clock, work) {
      ctx.server.now = () => clock.now();
      let done = false;
      const result = work.finally(() => {
        done = true;
      });
      result.catch(() => {});
      const sent = () => clients.reduce((n, c) => n + c.stats.requests, 0);
      const started = performance.now();
      while (!done) {
        if (performance.now() - started > 30_000) throw new Error("onClock: the work did not end within 30 s of real time");
        await tick();
        if (ctx.server.received.length === sent()) clock.next();
      }
      return result;
    },
  };
}
