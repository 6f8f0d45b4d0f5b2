/** Pagination: links.next followed to the end, the events shape, the links.next the client refuses, and where it stops. */
import { describe, expect, it } from "vitest";
import { ResponseValidationError } from "../../provider/client";
import { db, event, ok, useScriptedClients } from "./scriptedClients";

const t = useScriptedClients();

describe("pagination", () => {
  it("follows links.next across several pages", async () => {
    const c = t.client();
    const next = (after: number) => `${t.server.url}/v1/databases?after=${after}&limit=2`;
    t.server.expect(
      { method: "GET", path: "/v1/databases?limit=2", reply: ok([db(1), db(2)], { links: { next: next(2) } }) },
      { method: "GET", path: "/v1/databases?after=2&limit=2", reply: ok([db(3), db(4)], { links: { next: next(4) } }) },
      { method: "GET", path: "/v1/databases?after=4&limit=2", reply: ok([db(5)], { links: { next: null } }) },
    );
    const ids = (await c.listAll("GetDatabases", { limit: 2 })).map((d) => d.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(c.stats.byOperation).toEqual({ GetDatabases: 3 });
  });

  it("reads exactly 200 items at limit 200 when the full page says next: null", async () => {
    const c = t.client();
    const items = Array.from({ length: 200 }, (_, i) => db(i + 1));
    t.server.expect({ method: "GET", path: "/v1/databases?limit=200", reply: ok(items, { links: { next: null } }) });
    expect(await c.listAll("GetDatabases", { limit: 200 })).toHaveLength(200);
  });

  it("reads exactly 200 items at limit 200 when the full page links to an empty last page", async () => {
    const c = t.client();
    const items = Array.from({ length: 200 }, (_, i) => db(i + 1));
    t.server.expect(
      {
        method: "GET",
        path: "/v1/databases?limit=200",
        reply: ok(items, { links: { next: `${t.server.url}/v1/databases?after=200&limit=200` } }),
      },
      { method: "GET", path: "/v1/databases?after=200&limit=200", reply: ok([], { links: { next: null } }) },
    );
    const all = await c.listAll("GetDatabases", { limit: 200 });
    expect(all).toHaveLength(200);
    expect(all[199].id).toBe(200);
  });

  it("asks for the route's largest page when the caller gives no limit: 200 for lists, 10000 for events", async () => {
    const c = t.client();
    t.server.expect(
      { method: "GET", path: "/v1/databases?limit=200", reply: ok([db(1)], { links: { next: null } }) },
      { method: "GET", path: "/v1/organizations/7/events/recent?limit=10000", reply: ok({ events: [event(1)] }) },
    );
    expect(await c.listAll("GetDatabases", {})).toHaveLength(1);
    expect(await c.listAll("GetRecentOrganizationEvents", { orgId: 7 })).toHaveLength(1);
    expect(t.server.received.map((r) => r.path)).toEqual(["/v1/databases?limit=200", "/v1/organizations/7/events/recent?limit=10000"]);
  });

  it("reads the events shape {data: {events}} without links and stops", async () => {
    const c = t.client();
    t.server.expect({
      method: "GET",
      path: "/v1/organizations/7/events/recent?limit=3",
      reply: ok({ events: [event(1), event(2), event(3)] }),
    });
    const events = await c.listAll("GetRecentOrganizationEvents", { orgId: 7, limit: 3 });
    expect(events.map((e) => e.id)).toEqual([1, 2, 3]);
  });

  it("follows links.next on the events shape when it is there", async () => {
    const c = t.client();
    t.server.expect(
      {
        method: "GET",
        path: "/v1/organizations/7/events/recent?limit=10000",
        reply: ok({ events: [event(1)] }, { links: { next: `${t.server.url}/v1/organizations/7/events/recent?after=1` } }),
      },
      { method: "GET", path: "/v1/organizations/7/events/recent?after=1", reply: ok({ events: [event(2)] }, { links: { next: null } }) },
    );
    const ids: number[] = [];
    for await (const e of c.paginate("GetRecentOrganizationEvents", { orgId: 7 })) ids.push(e.id);
    expect(ids).toEqual([1, 2]);
  });

  it("refuses a links.next on another origin (the key would follow it) and one that loops", async () => {
    const c = t.client();
    t.server.expect(
      {
        method: "GET",
        path: "/v1/databases?limit=200",
        reply: ok([db(1)], { links: { next: "https://elsewhere.example/v1/databases?after=1" } }),
      },
      { method: "GET", path: "/v1/projects?limit=200", reply: ok([], { links: { next: `${t.server.url}/v1/projects?limit=200` } }) },
    );
    const err = await c.listAll("GetDatabases", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).fieldPath).toBe("links.next");
    expect(String(err)).toMatch(/another origin/);
    await expect(c.listAll("GetProjects", {})).rejects.toThrow(/points back at a page already read/);
  });

  it("stops an endless chain of empty pages after 10 in a row, naming the route and the bound", async () => {
    const c = t.client();
    // A server that never ends the list: every empty page names another (3,000 pages took 126 s).
    const page = (n: number) => `/v1/databases?after=${n}&limit=200`;
    t.server.expect({ method: "GET", path: "/v1/databases?limit=200", reply: ok([db(1)], { links: { next: t.server.url + page(1) } }) });
    for (let n = 1; n <= 10; n++)
      t.server.expect({ method: "GET", path: page(n), reply: ok([], { links: { next: t.server.url + page(n + 1) } }) });
    const err = (await c.listAll("GetDatabases", {}).catch((e: unknown) => e)) as ResponseValidationError;
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toBe(
      `GetDatabases GET ${page(10)}: response field 'links.next' still names a next page after 10 empty pages in a row; ` +
        "a list stops there (the service ends a list with at most one empty page)",
    );
    expect(err.pathTemplate).toBe("/v1/databases");
    // One empty page between full ones is normal, and resets the count.
    t.server.expect(
      { method: "GET", path: "/v1/databases?limit=200", reply: ok([], { links: { next: t.server.url + page(0) } }) },
      { method: "GET", path: page(0), reply: ok([db(1)], { links: { next: null } }) },
    );
    expect(await c.listAll("GetDatabases", {})).toHaveLength(1);
  });

  it("stops a chain that never ends past 5,000,000 items' worth of pages (500 pages of 10,000 events)", async () => {
    const c = t.client();
    const recent = "/v1/organizations/7/events/recent";
    const page = (n: number) => (n === 0 ? `${recent}?limit=10000` : `${recent}?after=${n}`);
    for (let n = 0; n < 500; n++) {
      t.server.expect({ method: "GET", path: page(n), reply: ok({ events: [event(n)] }, { links: { next: t.server.url + page(n + 1) } }) });
    }
    const err = (await c.listAll("GetRecentOrganizationEvents", { orgId: 7 }).catch((e: unknown) => e)) as ResponseValidationError;
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toBe(
      `GetRecentOrganizationEvents GET ${page(499)}: response field 'links.next' still names a next page after 500 pages; ` +
        "a list stops there (5000000 items at 10000 a page, more than the service holds in one list)",
    );
  });

  it("refuses to paginate an operation that is not a list", async () => {
    await expect(t.client().listAll("GetDatabase", { databaseId: 1 } as never)).rejects.toThrow(/not a paged operation/);
  });
});
