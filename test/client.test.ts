/**
 * The HTTP client against a scripted loopback server (test/support/scriptedServer.ts) that
 * answers 599 and records an error on any request it was not told to expect.
 */
import { randomInt } from "node:crypto";
import { Readable } from "node:stream";
import * as util from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  ClientClosedError,
  getClient,
  InsecureUrlError,
  NetworkError,
  ParameterError,
  parseRetryAfter,
  ResponseValidationError,
  ReviewAdminClient,
  TimeoutError,
  type ClientOptions,
} from "../provider/client";
import { ScriptedServer, type Received } from "./support/scriptedServer";

let server: ScriptedServer;
const clients: ReviewAdminClient[] = [];

beforeAll(async () => {
  server = await ScriptedServer.start();
});

afterEach(async () => {
  const errors = [...server.errors];
  const pending = server.pending;
  server.reset();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  expect(errors, "requests the script did not expect").toEqual([]);
  expect(pending, "expected requests that never came").toBe(0);
});

afterAll(async () => {
  await server.close();
});

/** A fresh key in the service's shape, so every test has its own rate limiter. */
function newKey(): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const pick = (n: number) => Array.from({ length: n }, () => chars[randomInt(chars.length)]).join("");
  return `RVWK.${pick(8)}.${pick(56)}`;
}

/** A client on the scripted server with fast test settings. */
function client(overrides: Partial<ClientOptions> = {}): ReviewAdminClient {
  const opts: ClientOptions = {
    baseUrl: server.url,
    apiKey: newKey(),
    requestsPerSecond: 1000,
    retryBaseMs: 5,
    retryMaxDelayMs: 20,
    timeoutMs: 2000,
    ...overrides,
  };
  const c = new ReviewAdminClient(opts);
  keys.set(c, opts.apiKey);
  clients.push(c);
  return c;
}

/** The key each test client was made with, so a test can look for it in printouts. */
const keys = new WeakMap<ReviewAdminClient, string>();

const db = (id: number) => ({ id, name: `db${id}`, orgAdminAccess: true, owningOrganizationId: 1 });
const user = { id: 1, email: "a@example.com" };
const event = (id: number) => ({ id, timestamp: 1_700_000_000_000 + id, type: "LOGIN", userId: 1, organizationId: 1, description: null, data: null });
const invitation = { email: "a@example.com", expiration: "2030-01-01T00:00:00Z", expired: false, organizationId: 1, organizationPermissions: [] };
const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({ status: 200, json: { data, ...extra } });

describe("URLs", () => {
  it("refuses plain http to a host that is not loopback, with a clear message", () => {
    for (const baseUrl of ["http://example.com", "http://10.0.0.1:8080", "http://127.0.0.1.nip.io"]) {
      expect(() => new ReviewAdminClient({ baseUrl, apiKey: newKey() })).toThrow(InsecureUrlError);
    }
    expect(() => new ReviewAdminClient({ baseUrl: "http://example.com", apiKey: newKey() })).toThrow(/plain http.*not loopback/);
    expect(() => new ReviewAdminClient({ baseUrl: "ftp://example.com", apiKey: newKey() })).toThrow(/must use https/);
    expect(() => new ReviewAdminClient({ baseUrl: "https://u:p@example.com", apiKey: newKey() })).toThrow(/user name or password/);
  });

  it("accepts https anywhere and http to 127.0.0.0/8, localhost and [::1]", async () => {
    for (const baseUrl of ["https://api.example.com/", "http://127.0.0.1:1", "http://127.9.8.7", "http://localhost:8080", "http://[::1]:8080"]) {
      const c = new ReviewAdminClient({ baseUrl, apiKey: newKey() });
      expect(c.baseUrl).toBe(baseUrl.replace(/\/$/, ""));
      await c.close();
    }
  });

  it("refuses a non-loopback http part URL before sending", async () => {
    await expect(client().putPart("http://storage.example.com/p?sig=s", Buffer.from("x"))).rejects.toThrow(InsecureUrlError);
  });
});

describe("requests", () => {
  it("sends the key as a Bearer token, JSON bodies with their content type, and returns data", async () => {
    const c = client();
    const key = keys.get(c)!;
    server.expect({
      method: "POST",
      path: "/v1/organizations/5/users",
      reply: ok({ invalid: [], invites: [invitation], users: [] }),
    });
    const data = await c.call("PostOrganizationUsers", { orgId: 5 }, { users: [{ email: "a@example.com", firstName: "A", lastName: "B" }] });
    expect(data.invites[0].email).toBe("a@example.com");
    const [req] = server.received;
    expect(req.headers.authorization).toBe(`Bearer ${key}`);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body.toString())).toEqual({ users: [{ email: "a@example.com", firstName: "A", lastName: "B" }] });
    expect(c.stats).toEqual({ requests: 1, retries: 0, throttled: 0, byOperation: { PostOrganizationUsers: 1 } });
  });

  it("keeps a base URL's path prefix and builds the query from params", async () => {
    const c = client({ baseUrl: server.url + "/api/" });
    server.expect({ method: "GET", path: "/api/v1/organizations/3/billing?year=2024&month=2&limit=10", reply: ok([], { links: { next: null } }) });
    expect(await c.call("GetOrganizationBilling", { orgId: 3, year: 2024, month: 2, limit: 10 })).toEqual([]);
  });

  it("sends E5's FormData as multipart", async () => {
    const c = client();
    server.expect({ method: "POST", path: "/v1/directories/4/custodians", reply: ok({ custodians: ["x"] }) });
    const form = new FormData();
    form.append("file", new Blob(["email,name\na@example.com,A\n"], { type: "text/csv" }), "custodians.csv");
    expect(await c.call("PostDirectoryCustodians", { directoryId: 4 }, form)).toEqual({ custodians: ["x"] });
    const [req] = server.received;
    expect(req.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.body.toString()).toContain('name="file"; filename="custodians.csv"');
    expect(req.body.toString()).toContain("a@example.com,A");
  });

  it("returns undefined for an empty answer of an envelope-none route, and data when there is one", async () => {
    const c = client();
    server.expect(
      { method: "DELETE", path: "/v1/organizations/1/users/9", reply: { status: 204 } },
      { method: "DELETE", path: "/v1/organizations/1/invitations", reply: ok({ deleted: true }) },
    );
    expect(await c.call("DeleteOrganizationUser", { orgId: 1, userId: 9 })).toBeUndefined();
    expect(await c.call("DeleteOrganizationInvitation", { orgId: 1 }, { email: "a@example.com" })).toEqual({ deleted: true });
    expect(JSON.parse(server.received[1].body.toString())).toEqual({ email: "a@example.com" });
  });

  it("refuses bad params and bodies before sending anything, naming the parameter", async () => {
    const c = client();
    const cases: [() => Promise<unknown>, string][] = [
      [() => c.call("GetDatabases", { limit: 201 }), "limit"],
      [() => c.call("GetDatabase", { databaseId: 0 }), "databaseId"],
      [() => c.call("GetOrganizationBilling", { orgId: 1, month: 13 }), "month"],
      [() => c.call("PostOrganizationUsers", { orgId: 1 }, { users: [] }), "body.users"],
      [() => c.call("PutDatabaseUser", { databaseId: 1, userId: 2 }, { databasePermissions: ["DB_ADMIN", "DB_ADMIN"] }), "body.databasePermissions"],
      [() => c.call("PostOrganizationInvitationResend", { orgId: 1 }, undefined as never), "body"],
      [() => c.call("PostDirectoryCustodians", { directoryId: 1 }, new FormData()), "body"],
      [() => c.call("GetCurrentUser", {}, { x: 1 } as never), "body"],
      [() => c.listAll("GetDatabases", { limit: 0 }), "limit"],
    ];
    for (const [run, parameter] of cases) {
      const err = await run().then(() => undefined, (e: unknown) => e);
      expect(err, parameter).toBeInstanceOf(ParameterError);
      expect((err as ParameterError).parameter).toBe(parameter);
    }
    expect(server.received).toEqual([]);
    expect(c.stats.requests).toBe(0);
  });
});

describe("pagination", () => {
  it("follows links.next across several pages", async () => {
    const c = client();
    const next = (after: number) => `${server.url}/v1/databases?after=${after}&limit=2`;
    server.expect(
      { method: "GET", path: "/v1/databases?limit=2", reply: ok([db(1), db(2)], { links: { next: next(2) } }) },
      { method: "GET", path: "/v1/databases?after=2&limit=2", reply: ok([db(3), db(4)], { links: { next: next(4) } }) },
      { method: "GET", path: "/v1/databases?after=4&limit=2", reply: ok([db(5)], { links: { next: null } }) },
    );
    const ids = (await c.listAll("GetDatabases", { limit: 2 })).map((d) => d.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(c.stats.byOperation).toEqual({ GetDatabases: 3 });
  });

  it("reads exactly 200 items at limit 200 when the full page says next: null", async () => {
    const c = client();
    const items = Array.from({ length: 200 }, (_, i) => db(i + 1));
    server.expect({ method: "GET", path: "/v1/databases?limit=200", reply: ok(items, { links: { next: null } }) });
    expect(await c.listAll("GetDatabases", { limit: 200 })).toHaveLength(200);
  });

  it("reads exactly 200 items at limit 200 when the full page links to an empty last page", async () => {
    const c = client();
    const items = Array.from({ length: 200 }, (_, i) => db(i + 1));
    server.expect(
      { method: "GET", path: "/v1/databases?limit=200", reply: ok(items, { links: { next: `${server.url}/v1/databases?after=200&limit=200` } }) },
      { method: "GET", path: "/v1/databases?after=200&limit=200", reply: ok([], { links: { next: null } }) },
    );
    const all = await c.listAll("GetDatabases", { limit: 200 });
    expect(all).toHaveLength(200);
    expect(all[199].id).toBe(200);
  });

  it("reads the events shape {data: {events}} without links and stops", async () => {
    const c = client();
    server.expect({ method: "GET", path: "/v1/organizations/7/events/recent?limit=3", reply: ok({ events: [event(1), event(2), event(3)] }) });
    const events = await c.listAll("GetRecentOrganizationEvents", { orgId: 7, limit: 3 });
    expect(events.map((e) => e.id)).toEqual([1, 2, 3]);
  });

  it("follows links.next on the events shape when it is there", async () => {
    const c = client();
    server.expect(
      { method: "GET", path: "/v1/organizations/7/events/recent", reply: ok({ events: [event(1)] }, { links: { next: `${server.url}/v1/organizations/7/events/recent?after=1` } }) },
      { method: "GET", path: "/v1/organizations/7/events/recent?after=1", reply: ok({ events: [event(2)] }, { links: { next: null } }) },
    );
    const ids: number[] = [];
    for await (const e of c.paginate("GetRecentOrganizationEvents", { orgId: 7 })) ids.push(e.id);
    expect(ids).toEqual([1, 2]);
  });

  it("refuses a links.next on another origin (the key would follow it) and one that loops", async () => {
    const c = client();
    server.expect(
      { method: "GET", path: "/v1/databases", reply: ok([db(1)], { links: { next: "https://elsewhere.example/v1/databases?after=1" } }) },
      { method: "GET", path: "/v1/projects", reply: ok([], { links: { next: `${server.url}/v1/projects` } }) },
    );
    const err = await c.listAll("GetDatabases", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).fieldPath).toBe("links.next");
    expect(String(err)).toMatch(/another origin/);
    await expect(c.listAll("GetProjects", {})).rejects.toThrow(/points back at a page already read/);
  });

  it("refuses to paginate an operation that is not a list", async () => {
    await expect(client().listAll("GetDatabase", { databaseId: 1 } as never)).rejects.toThrow(/not a paged operation/);
  });
});

describe("errors", () => {
  it("reads a {title, status} body into a one-line message", async () => {
    const c = client();
    server.expect({ method: "GET", path: "/v1/databases/7", reply: { status: 404, json: { title: "Not Found", status: 404 } } });
    const err = (await c.call("GetDatabase", { databaseId: 7 }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("GetDatabase GET /v1/databases/7: 404 Not Found");
    expect(err).toMatchObject({ code: "RA_ERR_API", status: 404, title: "Not Found", operationId: "GetDatabase", method: "GET", path: "/v1/databases/7", attempts: 1 });
    expect(err.body).toEqual({ title: "Not Found", status: 404 });
  });

  it("reads a {message, status} body", async () => {
    const c = client();
    server.expect({ method: "DELETE", path: "/v1/organizations/1/users/9", reply: { status: 404, json: { message: "User 9 is not a member", status: 404 } } });
    const err = (await c.call("DeleteOrganizationUser", { orgId: 1, userId: 9 }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe("DeleteOrganizationUser DELETE /v1/organizations/1/users/9: 404 User 9 is not a member");
    expect(err.serviceMessage).toBe("User 9 is not a member");
    expect(err.title).toBeUndefined();
  });

  it("makes an ApiError of a non-JSON error body", async () => {
    const c = client();
    server.expect({ method: "POST", path: "/v1/organizations/1/invitations/resend", reply: { status: 502, text: "<html>\n<b>Bad gateway</b>\n</html>" } });
    const err = (await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("PostOrganizationInvitationResend POST /v1/organizations/1/invitations/resend: 502 Bad Gateway");
    expect(err.body).toBe("<html>\n<b>Bad gateway</b>\n</html>");
  });

  it("names the field of a response that does not match the schema", async () => {
    const c = client();
    server.expect(
      { method: "GET", path: "/v1/databases/1", reply: ok({ ...db(1), name: 5 }) },
      { method: "GET", path: "/v1/databases", reply: ok([db(1), { ...db(2), id: "two" }], { links: { next: null } }) },
      { method: "GET", path: "/v1/organizations", reply: ok([]) },
      { method: "GET", path: "/v1/users/me", reply: { status: 200, text: "not json" } },
    );
    const fieldOf = (p: Promise<unknown>) => p.then(() => "resolved", (e: unknown) => (e as ResponseValidationError).fieldPath);
    expect(await fieldOf(c.call("GetDatabase", { databaseId: 1 }))).toBe("data.name");
    expect(await fieldOf(c.call("GetDatabases", {}))).toBe("data.1.id");
    expect(await fieldOf(c.call("GetOrganizations", {}))).toBe("links.next");
    expect(await fieldOf(c.call("GetCurrentUser", {}))).toBe("(body)");
  });
});

describe("retries", () => {
  it("retries a 429, honouring Retry-After in seconds", async () => {
    const c = client();
    server.expect(
      { method: "GET", path: "/v1/users/me", reply: { status: 429, json: { title: "Too Many Requests", status: 429 }, headers: { "retry-after": "1" } } },
      { method: "GET", path: "/v1/users/me", reply: ok(user) },
    );
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    const [first, second] = server.received;
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(c.stats).toMatchObject({ requests: 2, retries: 1, throttled: 1 });
  });

  it("retries a 429 without Retry-After with backoff, even on a non-idempotent POST", async () => {
    const c = client();
    const resend = { method: "POST", path: "/v1/organizations/1/invitations/resend" };
    server.expect(
      { ...resend, reply: { status: 429, json: { title: "Too Many Requests", status: 429 } } },
      { ...resend, reply: ok(invitation) },
    );
    expect(await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" })).toMatchObject({ email: "a@example.com" });
    expect(c.stats).toMatchObject({ requests: 2, retries: 1, throttled: 1 });
  });

  it("retries a 503 on a GET", async () => {
    const c = client();
    server.expect(
      { method: "GET", path: "/v1/users/me", reply: { status: 503, json: { title: "Maintenance", status: 503 } } },
      { method: "GET", path: "/v1/users/me", reply: ok(user) },
    );
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    expect(c.stats.retries).toBe(1);
  });

  it("retries a reset connection on a GET", async () => {
    const c = client();
    server.expect({ method: "GET", path: "/v1/users/me", reply: { reset: true } }, { method: "GET", path: "/v1/users/me", reply: ok(user) });
    expect(await c.call("GetCurrentUser", {})).toMatchObject({ id: 1 });
    expect(c.stats.retries).toBe(1);
  });

  it("does not retry a 503 or a reset connection on a non-idempotent POST", async () => {
    const c = client();
    const resend = { method: "POST", path: "/v1/organizations/1/invitations/resend" };
    server.expect({ ...resend, reply: { status: 503, json: { title: "Unavailable", status: 503 } } }, { ...resend, reply: { reset: true } });
    const err = (await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, attempts: 1 });
    const net = await c.call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" }).catch((e: unknown) => e);
    expect(net).toBeInstanceOf(NetworkError);
    expect(net).toMatchObject({ code: "RA_ERR_NETWORK", attempts: 1 });
    expect(server.received).toHaveLength(2);
  });

  it("never retries 400, 401, 403, 404 or 422", async () => {
    const c = client();
    for (const status of [400, 401, 403, 404, 422]) {
      server.expect({ method: "GET", path: "/v1/users/me", reply: { status, json: { title: `status ${status}`, status } } });
      const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
      expect(err).toMatchObject({ status, attempts: 1 });
    }
    expect(server.received).toHaveLength(5);
    expect(c.stats.retries).toBe(0);
  });

  it("stops at maxAttempts and says how many", async () => {
    const c = client({ maxAttempts: 3 });
    server.expectTimes(3, { method: "GET", path: "/v1/users/me", reply: { status: 503, json: { title: "Unavailable", status: 503 } } });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
    expect(err.attempts).toBe(3);
    expect(err.message).toBe("GetCurrentUser GET /v1/users/me: 503 Unavailable (after 3 attempts)");
    expect(c.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it("stops when the waits would pass maxRetryWaitMs", async () => {
    const c = client({ maxRetryWaitMs: 500 });
    const busy = { status: 503, json: { title: "Busy", status: 503 }, headers: { "retry-after": "0.3" } };
    // 300 ms waited after the first answer; another 300 would make 600 > 500: give up after two.
    server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: busy });
    expect(await c.call("GetCurrentUser", {}).catch((e: unknown) => e)).toMatchObject({ status: 503, attempts: 2 });
    // A Retry-After longer than the whole budget ends it at once.
    server.expect({ method: "GET", path: "/v1/users/me", reply: { ...busy, headers: { "retry-after": "3600" } } });
    const started = performance.now();
    expect(await c.call("GetCurrentUser", {}).catch((e: unknown) => e)).toMatchObject({ status: 503, attempts: 1 });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("gives up on connection failures with a NetworkError carrying the low-level code", async () => {
    const c = client({ maxAttempts: 2 });
    server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: { reset: true } });
    const err = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: "RA_ERR_NETWORK", attempts: 2, operationId: "GetCurrentUser" });
    expect(err.causeCode).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/);
    expect(err.message).toMatch(/^GetCurrentUser GET \/v1\/users\/me: \S+ .* \(after 2 attempts\)$/);
  });

  it("times out a silent server, retrying idempotent routes", async () => {
    const c = client({ maxAttempts: 2, timeoutMs: 150 });
    server.expectTimes(2, { method: "GET", path: "/v1/users/me", reply: { hang: true } });
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

describe("rate limit", () => {
  /** Largest number of arrivals inside any half-open one-second window. */
  function busiestSecond(received: Received[]): number {
    const at = received.map((r) => r.at).sort((a, b) => a - b);
    let best = 0;
    for (let i = 0, j = 0; j < at.length; j++) {
      while (at[j] - at[i] >= 1000) i++;
      best = Math.max(best, j - i + 1);
    }
    return best;
  }

  it("sends a burst of 100 requests at 25/s with never more than 25 in any one-second window", async () => {
    const c = client({ requestsPerSecond: 25 });
    server.expectTimes(100, { method: "GET", path: "/v1/users/me", reply: ok(user) });
    const started = performance.now();
    await Promise.all(Array.from({ length: 100 }, () => c.call("GetCurrentUser", {})));
    expect(server.received).toHaveLength(100);
    expect(busiestSecond(server.received)).toBeLessThanOrEqual(25);
    // Smooth, not bursty: consecutive arrivals are spread out rather than sent in clumps.
    const at = server.received.map((r) => r.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    // (A few close pairs are allowed: a busy event loop can delay one arrival onto the next.)
    expect(gaps.filter((g) => g < 20).length).toBeLessThan(10);
    expect(performance.now() - started).toBeLessThan(6000);
  });

  it("keeps the one-second guarantee even when burst lets 25 go back to back", async () => {
    const c = client({ requestsPerSecond: 25, burst: 25 });
    server.expectTimes(60, { method: "GET", path: "/v1/users/me", reply: ok(user) });
    await Promise.all(Array.from({ length: 60 }, () => c.call("GetCurrentUser", {})));
    expect(busiestSecond(server.received)).toBeLessThanOrEqual(25);
  });

  it("shares one limiter between every client of the same key", async () => {
    const apiKey = newKey();
    const a = client({ apiKey, requestsPerSecond: 10 });
    const b = client({ apiKey, requestsPerSecond: 10, baseUrl: server.url + "/" });
    server.expectTimes(10, { method: "GET", path: "/v1/users/me", reply: ok(user) });
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call("GetCurrentUser", {})));
    const at = server.received.map((r) => r.at);
    // Ten requests at 10/s, spaced 100 ms: at least ~900 ms from first to last.
    expect(at[9] - at[0]).toBeGreaterThanOrEqual(850);
  });
});

describe("cancellation", () => {
  it("aborts a request in flight", async () => {
    const c = client();
    server.expect({ method: "GET", path: "/v1/users/me", reply: { hang: true } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = performance.now();
    const err = await c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError"); // the caller's reason, not a client error
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("aborts during a backoff wait", async () => {
    const c = client();
    server.expect({ method: "GET", path: "/v1/users/me", reply: { status: 503, json: { title: "Busy", status: 503 }, headers: { "retry-after": "10" } } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const started = performance.now();
    const err = await c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("aborts while waiting for a rate-limit token, sending nothing", async () => {
    const c = client({ requestsPerSecond: 1 });
    server.expect({ method: "GET", path: "/v1/users/me", reply: ok(user) });
    await c.call("GetCurrentUser", {});
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await c.call("GetCurrentUser", {}, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(server.received).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const c = client();
    const err = await c.call("GetCurrentUser", {}, undefined, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(server.received).toEqual([]);
  });
});

describe("putPart", () => {
  it("PUTs bytes without the key and returns the ETag", async () => {
    const c = client();
    server.expect({ method: "PUT", path: "/parts/1?sig=abc", reply: { status: 200, headers: { etag: '"e1"' } } });
    expect(await c.putPart(`${server.url}/parts/1?sig=abc`, Buffer.from("hello"))).toEqual({ etag: '"e1"' });
    const [req] = server.received;
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers["content-length"]).toBe("5");
    expect(req.body.toString()).toBe("hello");
    expect(c.stats.byOperation).toEqual({ putPart: 1 });
  });

  it("retries a byte body on 5xx and sends a stream of known size once", async () => {
    const c = client();
    server.expect(
      { method: "PUT", path: "/parts/2", reply: { status: 500, text: "oops" } },
      { method: "PUT", path: "/parts/2", reply: { status: 200, headers: { etag: "e2" } } },
      { method: "PUT", path: "/parts/3", reply: { status: 200, headers: { etag: "e3" } } },
      { method: "PUT", path: "/parts/4", reply: { status: 503, text: "busy" } },
    );
    expect(await c.putPart(`${server.url}/parts/2`, new Uint8Array([1, 2, 3]))).toEqual({ etag: "e2" });
    expect(await c.putPart(`${server.url}/parts/3`, Readable.from([Buffer.from("ab"), Buffer.from("cd")]), { size: 4 })).toEqual({ etag: "e3" });
    expect(server.received[2].body.toString()).toBe("abcd");
    const err = await c.putPart(`${server.url}/parts/4`, Readable.from([Buffer.from("x")]), { size: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, attempts: 1 });
    await expect(c.putPart(`${server.url}/parts/5`, Readable.from([Buffer.from("x")]))).rejects.toThrow(ParameterError);
  });

  it("reports a missing ETag, and never puts the URL's query (its credential) in an error", async () => {
    const c = client();
    server.expect(
      { method: "PUT", path: "/parts/6?sig=SECRET", reply: { status: 200 } },
      { method: "PUT", path: "/parts/7?sig=SECRET", reply: { status: 403, json: { title: "Signature expired", status: 403 } } },
    );
    const missing = await c.putPart(`${server.url}/parts/6?sig=SECRET`, Buffer.from("x")).catch((e: unknown) => e);
    expect(missing).toMatchObject({ fieldPath: "headers.etag" });
    const denied = (await c.putPart(`${server.url}/parts/7?sig=SECRET`, Buffer.from("x")).catch((e: unknown) => e)) as ApiError;
    expect(denied.message).toBe("putPart PUT /parts/7: 403 Signature expired");
    expect(util.inspect(denied, { depth: 10 })).not.toContain("SECRET");
  });
});

describe("the key never shows", () => {
  it("is absent from errors, their stacks and causes, the client's printouts and the log", async () => {
    const lines: string[] = [];
    const c = client({ maxAttempts: 1, timeoutMs: 100, logger: (l) => lines.push(l) });
    const key = keys.get(c)!;
    server.expect(
      // A server that echoes the Authorization header back must not get the key into the error.
      { method: "GET", path: "/v1/users/me", reply: (req) => ({ status: 401, json: { title: `bad credentials ${req.headers.authorization}`, status: 401 } }) },
      { method: "GET", path: "/v1/users/me", reply: { reset: true } },
      { method: "GET", path: "/v1/users/me", reply: { hang: true } },
      { method: "GET", path: "/v1/databases/1", reply: (req) => ok({ ...db(1), name: 1, echo: req.headers.authorization }) },
      { method: "GET", path: "/v1/databases/2", reply: (req) => ok({ ...db(2), echo: req.headers.authorization }) },
    );
    const errors = [
      await c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await c.call("GetDatabase", { databaseId: 1 }).catch((e: unknown) => e),
      await c.call("GetDatabase", { databaseId: -1 }).catch((e: unknown) => e),
    ];
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      "ApiError",
      "NetworkError",
      "TimeoutError",
      "ResponseValidationError",
      "ParameterError",
    ]);
    expect(server.received[0].headers.authorization).toBe(`Bearer ${key}`); // the key did go where it belongs
    expect((errors[0] as ApiError).title).toBe("bad credentials Bearer [REDACTED]");
    // Data the service returns is the caller's: a redacted echo reaches them too.
    expect(await c.call("GetDatabase", { databaseId: 2 })).toMatchObject({ echo: "Bearer [REDACTED]" });

    const printouts = errors.flatMap((e) => [String(e), JSON.stringify(e), util.inspect(e, { depth: 10 }), (e as Error).stack ?? ""]);
    printouts.push(String(c), JSON.stringify(c), util.inspect(c, { depth: 10 }), util.inspect({ nested: { c } }, { depth: 10 }), ...lines);
    expect(lines.length).toBeGreaterThan(0);
    for (const text of printouts) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.split(".")[2]); // nor the secret part on its own
    }
    expect(JSON.stringify(c)).toContain('"apiKey":"[REDACTED]"');
  });
});

describe("getClient", () => {
  it("shares one client per base URL, key and rate, and replaces a closed one", async () => {
    const apiKey = newKey();
    const opts = { baseUrl: server.url, apiKey };
    const a = getClient(opts);
    clients.push(a);
    expect(getClient({ ...opts, baseUrl: server.url + "/" })).toBe(a);
    const b = getClient({ ...opts, requestsPerSecond: 5 });
    clients.push(b);
    expect(b).not.toBe(a);
    const other = getClient({ ...opts, apiKey: newKey() });
    clients.push(other);
    expect(other).not.toBe(a);
    await a.close();
    await expect(a.call("GetCurrentUser", {})).rejects.toThrow(ClientClosedError);
    const c = getClient(opts);
    clients.push(c);
    expect(c).not.toBe(a);
  });
});
