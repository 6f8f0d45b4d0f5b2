/**
 * The HTTP adapter over real loopback HTTP: envelopes, paging at 199/200/201 items, parameter
 * and body validation (400 naming the parameter), 401/404/405, the rate limits (25/s per
 * account, stricter for failed authentication), injected faults and the request counters.
 */
import { describe, expect, it } from "vitest";
import { accessText, routes } from "../../contract";
import { AccountRateLimit } from "../../emulator/traffic";
import { api, control, useEmulator } from "../support/emulatorHttp";

/** The rate limits' clock, in ms: it moves only when a test moves it, so buckets refill on cue. */
let rateLimitNow = 0;
const emu = useEmulator({ authFailureLimit: 0, rateLimitClock: () => rateLimitNow });

/** A fresh organization with `n` members and an organization key for it. */
async function organizationWithMembers(n: number): Promise<{ orgId: number; key: string }> {
  const org = await control(emu.url, "POST", "/organizations", { name: `Paging ${n}` });
  expect(org.status).toBe(201);
  const scaled = await control(emu.url, "POST", "/scale", { organizationId: org.body.data.id, members: n });
  expect(scaled.body.data.membersAdded).toBe(n);
  const key = await control(emu.url, "POST", "/keys", { organizationId: org.body.data.id });
  return { orgId: org.body.data.id, key: key.body.data.key };
}

/** Follows links.next from `path`, returning the size of each page and every id. */
async function readAll(key: string, path: string): Promise<{ sizes: number[]; ids: number[]; nexts: (string | null)[] }> {
  const sizes: number[] = [];
  const ids: number[] = [];
  const nexts: (string | null)[] = [];
  let url: string | null = emu.url + path;
  while (url !== null) {
    const res = await api("", key, "GET", url);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "links"]);
    expect(res.body.links).toHaveProperty("next");
    sizes.push(res.body.data.length);
    ids.push(...res.body.data.map((u: { id: number }) => u.id));
    nexts.push(res.body.links.next);
    url = res.body.links.next;
  }
  return { sizes, ids, nexts };
}

describe("envelopes", () => {
  it("wraps single entities as {data} and lists as {data, links: {next}} with next always present", async () => {
    const me = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    expect(Object.keys(me.body)).toEqual(["data"]);
    expect(me.headers.get("content-type")).toMatch(/^application\/json/);
    const list = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases");
    expect(list.body).toEqual({ data: expect.any(Array), links: { next: null } });
  });

  it("answers E14 with data.invitations and deletes with 204 and no body", async () => {
    const inv = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/invitations");
    expect(Object.keys(inv.body.data)).toEqual(["invitations"]);
    const del = await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/organizations/102/invitations", {
      email: "new.hire@northwind.example",
    });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    emu.reset();
  });

  it("answers the not-found of E13, E20 and E24 with {message, status}, the others with {title, status}", async () => {
    const e13 = await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/organizations/102/invitations", { email: "nobody@example.com" });
    const e20 = await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/organizations/102/users/9999");
    const e24 = await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/databases/2001/users/9999");
    for (const res of [e13, e20, e24]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: expect.any(String), status: 404 });
    }
    const e21 = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/users/9999");
    expect(e21.body).toEqual({ title: expect.stringContaining("9999"), status: 404 });
    const forbidden = await api(emu.url, emu.keys.member, "DELETE", "/v1/organizations/102/users/1001");
    expect(forbidden.body).toEqual({ title: "Forbidden: DeleteOrganizationUser needs org admin of organization 102", status: 403 });
  });

  it("words every 403 as the route's access text with the ids filled in, as the provider's hints do", async () => {
    const cases = [
      [emu.keys.member, "GET", "/v1/databases/2001/users", routes.GetDatabaseUsers, { databaseId: 2001 }],
      [emu.keys.member, "GET", "/v1/organizations/102/billing", routes.GetOrganizationBilling, { orgId: 102 }],
      [emu.keys.subOrgAdmin, "GET", "/v1/organizations/102", routes.GetOrganization, { orgId: 102 }],
      [emu.keys.orgAdmin, "POST", "/v1/databases/2002/datasets", routes.PostDatabaseDataset, { databaseId: 2002 }],
    ] as const;
    for (const [key, method, path, route, ids] of cases) {
      const res = await api(emu.url, key, method, path, method === "POST" ? { name: "x" } : undefined);
      expect(res.status).toBe(403);
      expect(res.body.title).toBe(`Forbidden: ${route.operationId} needs ${accessText(route, ids)}`);
    }
  });
});

describe("paging (after/limit, links.next)", () => {
  it.each([
    [199, [199]],
    [200, [200]],
    [201, [200, 1]],
  ])("%i members with limit=200 come in pages of %j", async (n, sizes) => {
    const { orgId, key } = await organizationWithMembers(n);
    const all = await readAll(key, `/v1/organizations/${orgId}/users?limit=200`);
    expect(all.sizes).toEqual(sizes);
    expect(new Set(all.ids).size).toBe(n);
    expect(all.ids).toEqual([...all.ids].sort((a, b) => a - b));
    expect(all.nexts[all.nexts.length - 1]).toBeNull();
    if (sizes.length > 1) {
      // A complete URL on the emulator, carrying after (the last id of the page) and limit.
      const next = new URL(all.nexts[0]!);
      expect(next.origin).toBe(emu.url);
      expect(next.pathname).toBe(`/v1/organizations/${orgId}/users`);
      expect(next.searchParams.get("after")).toBe(String(all.ids[199]));
      expect(next.searchParams.get("limit")).toBe("200");
    }
  });

  it("defaults to 100 per page", async () => {
    const { orgId, key } = await organizationWithMembers(201);
    expect((await readAll(key, `/v1/organizations/${orgId}/users`)).sizes).toEqual([100, 100, 1]);
  });

  it("starts after the given id", async () => {
    const res = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/users?after=1003&limit=2");
    expect(res.body.data.map((u: any) => u.id)).toEqual([1004, 1005]);
    expect(new URL(res.body.links.next).searchParams.get("after")).toBe("1005");
  });
});

describe("parameter and body validation: 400 with a title naming the parameter", () => {
  it.each([
    ["/v1/organizations/102/users?limit=0", "limit"],
    ["/v1/organizations/102/users?limit=201", "limit"],
    ["/v1/organizations/102/users?limit=ten", "limit"],
    ["/v1/databases?limit=1.5", "limit"],
    ["/v1/organizations/102/users?after=-1", "after"],
    ["/v1/organizations/abc/users", "orgId"],
    ["/v1/organizations/102/billing?month=13", "month"],
    ["/v1/organizations/102/billing?month=0", "month"],
    ["/v1/organizations/102/billing?year=99", "year"],
    ["/v1/databases/2001/billing?month=13", "month"],
    ["/v1/organizations/102/events?end=2000", "begin"],
    ["/v1/organizations/102/events?begin=1000", "end"],
    ["/v1/organizations/102/events?begin=2000&end=1000", "end"],
    ["/v1/organizations/102/events?begin=-5&end=1000", "begin"],
    ["/v1/organizations/102/events/recent?limit=10001", "limit"],
    // Ids are plain decimal digits: not hex, exponents, spaces or decimals (Number() would read them).
    ["/v1/organizations/0x66/users", "orgId"],
    ["/v1/organizations/1e2/users", "orgId"],
    ["/v1/organizations/%20102/users", "orgId"],
    ["/v1/organizations/102.0/users", "orgId"],
    ["/v1/databases/2001/users/0x3EB", "userId"],
    ["/v1/organizations/102/users?limit=0x10", "limit"],
    ["/v1/organizations/102/events/after/1e3", "eventId"],
    // A malformed %-escape is the client's mistake: 400 naming the parameter, not a 500.
    ["/v1/organizations/%E0%A4%A/users", "orgId"],
    ["/v1/organizations/%ZZ/users", "orgId"],
    ["/v1/databases/2001/users/%", "userId"],
  ])("GET %s names %s", async (path, parameter) => {
    const res = await api(emu.url, emu.keys.orgAdmin, "GET", path);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(res.body.title).toContain(`'${parameter}'`);
  });

  it.each([
    ["POST", "/v1/organizations/102/users", {}, "body.users"],
    ["POST", "/v1/organizations/102/users", { users: [{ email: "a@b.example", firstName: "A" }] }, "body.users.0.lastName"],
    [
      "POST",
      "/v1/organizations/102/users",
      { users: [{ email: "a@b.example", firstName: "A", lastName: "B" }], permissions: ["ROOT"] },
      "body.permissions.0",
    ],
    [
      "POST",
      "/v1/organizations/102/users",
      { users: [{ email: "a@b.example", firstName: "A", lastName: "B" }], permissions: ["ORG_ADMIN", "ORG_ADMIN"] },
      "body.permissions",
    ],
    ["PUT", "/v1/databases/2001/users/1003", { databasePermissions: ["DB_OWNER"] }, "body.databasePermissions.0"],
    ["PUT", "/v1/databases/2001/users/1003", {}, "body.databasePermissions"],
    ["PATCH", "/v1/organizations/102/users/1003", { userIdentifiers: [{ abbreviation: "X" }] }, "body.userIdentifiers.0.label"],
    ["DELETE", "/v1/organizations/102/invitations", {}, "body.email"],
    ["POST", "/v1/organizations/102/users", "{not json", "body"],
  ])("%s %s with %j names %s", async (method, path, body, parameter) => {
    const res = await api(emu.url, emu.keys.orgAdmin, method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.title).toContain(`'${parameter}'`);
  });
});

describe("authentication and unknown routes", () => {
  it.each([
    ["no header", undefined],
    ["a key of the wrong shape", "not-a-key"],
    ["a well-shaped unknown key", "ra.ABCDEFGH." + "X".repeat(56)],
  ])("answers 401 for %s", async (_, key) => {
    const res = await api(emu.url, key, "GET", "/v1/users/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ title: expect.stringMatching(/API key/), status: 401 });
  });

  it("issues keys shaped like the service's", () => {
    for (const key of Object.values(emu.keys)) expect(key).toMatch(/^ra\.[A-Z0-9]{8}\.[A-Z0-9]{56}$/);
  });

  it("answers 404 for an unknown path and 405 for a known path with another method", async () => {
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/nothing/here")).status).toBe(404);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v2/users/me")).status).toBe(404);
    const wrong = await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/organizations");
    expect(wrong.status).toBe(405);
    expect(wrong.body.status).toBe(405);
  });

  it("routes by the route table before it looks at the key: no route, 404 (405) with or without one", async () => {
    expect((await api(emu.url, undefined, "GET", "/v1/nothing/here")).status).toBe(404);
    expect((await api(emu.url, undefined, "GET", "/")).status).toBe(404);
    expect((await api(emu.url, undefined, "DELETE", "/v1/organizations")).status).toBe(405);
    expect((await api(emu.url, undefined, "GET", "/v1/organizations")).status).toBe(401);
  });
});

describe("rate limits", () => {
  it("holds each account to 25 requests in any second (the bucket, on its own clock)", () => {
    const limiter = new AccountRateLimit(25);
    const at = (ms: number) => limiter.take("user:1", ms);
    expect(Array.from({ length: 25 }, () => at(0))).toEqual(Array(25).fill(0));
    expect(at(0)).toBe(1); // the 26th within the second: wait (Retry-After) 1 second
    expect(at(39)).toBe(1); // 0.975 of a token back: not yet
    expect(at(40)).toBe(0); // one token every 40 ms
    expect(limiter.take("user:2", 40)).toBe(0); // accounts are separate
    expect(at(1040)).toBe(0);
    expect(new AccountRateLimit(Infinity).enabled).toBe(false);
    expect(Array.from({ length: 1000 }, () => new AccountRateLimit(0).take("x", 0)).every((w) => w === 0)).toBe(true);
    // Without an explicit instant it asks its own clock.
    let now = 0;
    const clocked = new AccountRateLimit(1, () => now);
    expect([clocked.take("a"), clocked.take("a")]).toEqual([0, 1]);
    now = 1000;
    expect(clocked.take("a")).toBe(0);
  });

  it("answers 429 with Retry-After over HTTP once an account passes 25 requests a second", async () => {
    await control(emu.url, "PUT", "/rate-limit", { perSecond: 25 });
    try {
      // The limits' clock stands still during the burst: exactly 25 pass.
      const burst = await Promise.all(Array.from({ length: 60 }, () => api(emu.url, emu.keys.member, "GET", "/v1/users/me")));
      const ok = burst.filter((r) => r.status === 200).length;
      const limited = burst.filter((r) => r.status === 429);
      expect(ok).toBe(25);
      expect(limited.length).toBe(35);
      expect(limited[0].headers.get("retry-after")).toBe("1");
      expect(limited[0].body).toEqual({ title: expect.stringContaining("Rate limit"), status: 429 });
      // Another account is not affected; an organization key is an account of its own.
      expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(200);
      expect((await api(emu.url, emu.keys.orgKey, "GET", "/v1/users/me")).status).toBe(200);
      // A second later the account has its budget back.
      rateLimitNow += 1000;
      const next = await Promise.all(Array.from({ length: 26 }, () => api(emu.url, emu.keys.member, "GET", "/v1/users/me")));
      expect(next.filter((r) => r.status === 200).length).toBe(25);
    } finally {
      await control(emu.url, "PUT", "/rate-limit", { perSecond: 0 });
    }
  });

  it("limits failed authentication more strictly: after 5 failures a second, 429", async () => {
    await control(emu.url, "PUT", "/rate-limit", { authFailuresPerSecond: 5 });
    try {
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => api(emu.url, "ra.BADBADBA." + "B".repeat(56), "GET", "/v1/users/me")),
      );
      expect(burst.filter((r) => r.status === 401).length).toBe(5);
      expect(burst.filter((r) => r.status === 429).length).toBe(7);
      const limited = burst.find((r) => r.status === 429)!;
      expect(limited.body).toEqual({ title: expect.stringContaining("failed authentication"), status: 429 });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Valid keys from the same address are not held back by others' failures.
      expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(200);
    } finally {
      await control(emu.url, "PUT", "/rate-limit", { authFailuresPerSecond: 0 });
    }
  });
});

describe("faults", () => {
  it("injects scripted statuses on the next requests, then answers normally", async () => {
    await control(emu.url, "POST", "/faults", { script: [{ status: 503 }, { status: 429, retryAfter: 2 }, { status: 500 }] });
    const a = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    const b = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    const c = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    const d = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    expect([a.status, b.status, c.status, d.status]).toEqual([503, 429, 500, 200]);
    expect(a.body).toEqual({ title: expect.any(String), status: 503 });
    expect(b.headers.get("retry-after")).toBe("2");
  });

  it("limits faults to the listed operations", async () => {
    await control(emu.url, "POST", "/faults", { rates: { "500": 1 }, operations: ["GetDatabases"] });
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases")).status).toBe(500);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(200);
    await control(emu.url, "DELETE", "/faults");
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases")).status).toBe(200);
  });

  it("drops connections before the handler (no change) or after it (the change happened)", async () => {
    emu.reset();
    await control(emu.url, "POST", "/faults", { script: [{ drop: "before" }], operations: ["PutDatabaseUser"] });
    const put = () => api(emu.url, emu.keys.orgAdmin, "PUT", "/v1/databases/2001/users/1003", { databasePermissions: ["DB_DELETE"] });
    await expect(put()).rejects.toThrow();
    expect(emu.store.databases.findUser(2001, 1003)).toBeUndefined();
    await control(emu.url, "POST", "/faults", { script: [{ drop: "after" }], operations: ["PutDatabaseUser"] });
    await expect(put()).rejects.toThrow();
    expect(emu.store.databases.findUser(2001, 1003)?.permissions).toEqual(["DB_DELETE"]);
    await control(emu.url, "DELETE", "/faults");
  });

  it("adds latency", async () => {
    await control(emu.url, "POST", "/faults", { latencyMs: 150 });
    const started = performance.now();
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await control(emu.url, "DELETE", "/faults");
  });

  it("draws random faults reproducibly from a seed", async () => {
    const run = async () => {
      await control(emu.url, "POST", "/faults", { rates: { "503": 0.5 }, seed: 7 });
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
    await control(emu.url, "DELETE", "/faults");
  });
});

describe("request log and counters", () => {
  it("counts requests per operation and per status, and resets", async () => {
    await control(emu.url, "DELETE", "/requests");
    for (const orgId of [102, 103, 999]) await api(emu.url, emu.keys.parentOrgAdmin, "GET", `/v1/organizations/${orgId}/databases`);
    await api(emu.url, undefined, "GET", "/v1/users/me");
    const { body } = await control(emu.url, "GET", "/requests");
    expect(body.data.counters.byOperation.GetOrganizationDatabases).toEqual({ total: 3, byStatus: { "200": 2, "404": 1 } });
    expect(body.data.counters.byStatus).toEqual({ "200": 2, "404": 1, "401": 1 });
    expect(body.data.counters.total).toBe(4);
    const log = (await control(emu.url, "GET", "/requests?operation=GetOrganizationDatabases")).body.data.log;
    expect(log.map((e: any) => [e.path, e.status])).toEqual([
      ["/v1/organizations/102/databases", 200],
      ["/v1/organizations/103/databases", 200],
      ["/v1/organizations/999/databases", 404],
    ]);
    expect(log[0].account).toMatch(/^key:/);
    await control(emu.url, "DELETE", "/requests");
    expect((await control(emu.url, "GET", "/requests")).body.data.counters.total).toBe(0);
  });
});
