/**
 * getActivityEvents: time range, after an event id, most recent; against the seeded emulator
 * (shared-timestamp groups across page boundaries) and against a scripted service that repeats
 * boundary events on the next page (each event is kept once).
 */
import { afterAll, describe, expect, it } from "vitest";
import { getClient } from "../../provider/client";
import * as data from "../../provider/data";
import { SEEDED } from "../../emulator";
import { useScriptedServer } from "../support/scriptedServer";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

describe("getActivityEvents", () => {
  const storedEvents = (organizationId: number) =>
    s.emu.store.events.of([organizationId]).sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);

  it("reads every event of a time range across a shared-timestamp page boundary, each once", async () => {
    const stored = storedEvents(SEEDED.org);
    expect(stored.length).toBeGreaterThan(1000);
    // The seeded busy log has a group sharing one timestamp across index 999/1000 (the default page boundary).
    expect(stored[999].timestamp).toBe(stored[1000].timestamp);
    s.emu.traffic.log.reset();
    const res = await data.getActivityEvents({ organizationId: SEEDED.org, begin: 0 }, s.as("orgAdmin"));
    expect(res.mode).toBe("range");
    expect(res.events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    expect(res.lastEventId).toBe(Math.max(...stored.map((e) => e.id)));
    expect(s.emu.traffic.log.list("GetOrganizationEvents")).toHaveLength(2);
  });

  it("small pages over many shared-timestamp groups lose and repeat nothing", async () => {
    const stored = storedEvents(SEEDED.subOrg);
    const begin = stored[0].timestamp;
    const end = stored[stored.length - 1].timestamp + 1;
    const groups = stored.filter((e, i) => i > 0 && e.timestamp === stored[i - 1].timestamp);
    expect(groups.length).toBeGreaterThan(0);
    for (const limit of [1, 2, 3, 7]) {
      const res = await data.getActivityEvents({ organizationId: SEEDED.subOrg, begin, end, limit }, s.as("parentOrgAdmin"));
      expect(res.events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    }
    // A parent organization key sees no description or data.
    const res = await data.getActivityEvents(
      { organizationId: SEEDED.subOrg, begin: new Date(begin), end: new Date(end).toISOString() },
      s.as("parentOrgAdmin"),
    );
    expect(res.events.every((e) => e.description === null && e.data === null)).toBe(true);
  });

  it("range bounds: begin inclusive, end exclusive", async () => {
    const stored = storedEvents(SEEDED.org);
    const begin = stored[100].timestamp;
    const end = stored[200].timestamp;
    const res = await data.getActivityEvents({ organizationId: SEEDED.org, begin, end, limit: 10 }, s.as("orgAdmin"));
    expect(res.events.map((e) => e.id)).toEqual(stored.filter((e) => e.timestamp >= begin && e.timestamp < end).map((e) => e.id));
    expect(res).toMatchObject({ begin, end });
  });

  it("after an event id follows every E11 page", async () => {
    const stored = s.emu.store.events.of([SEEDED.org]).sort((a, b) => a.id - b.id);
    const after = stored[300].id;
    const res = await data.getActivityEvents({ organizationId: SEEDED.org, afterEventId: after, limit: 250 }, s.as("orgAdmin"));
    expect(res.mode).toBe("after");
    expect(res.events.map((e) => e.id)).toEqual(stored.filter((e) => e.id > after).map((e) => e.id));
    const again = await valueOf(
      data.getActivityEventsOutput({ organizationId: SEEDED.org, afterEventId: res.lastEventId! }, s.as("orgAdmin")),
    );
    expect(again.events).toEqual([]);
    expect(again.lastEventId).toBeNull();
  });

  it("the Output form passes Date arguments through, given as they are or through a Promise", async () => {
    const args = { organizationId: SEEDED.org, begin: new Date(0), end: new Date(Date.now() + 1000) };
    const viaPromise = await data.getActivityEvents(args, s.as("orgAdmin"));
    expect(viaPromise.events.length).toBeGreaterThan(0);
    const viaOutput = await valueOf(data.getActivityEventsOutput({ ...args, end: Promise.resolve(args.end) }, s.as("orgAdmin")));
    expect(viaOutput).toEqual(viaPromise);
  });

  it("recent: the most recent events", async () => {
    const stored = storedEvents(SEEDED.org);
    const res = await data.getActivityEvents({ organizationId: SEEDED.org, recent: true, limit: 10 }, s.as("orgAdmin"));
    expect(res.mode).toBe("recent");
    expect(res.events.map((e) => e.id)).toEqual(stored.slice(-10).map((e) => e.id));
    const typed = await data.getActivityEvents(
      { organizationId: SEEDED.org, recent: true, limit: 200, types: ["SAML_UPDATED"] },
      s.as("orgAdmin"),
    );
    expect(typed.events.every((e) => e.type === "SAML_UPDATED")).toBe(true);
  });

  it("refuses unclear argument combinations with one clear line", async () => {
    const cases: [data.GetActivityEventsArgs, RegExp][] = [
      [{ organizationId: SEEDED.org }, /^getActivityEvents: no events selected: give begin/],
      [{ organizationId: SEEDED.org, begin: 0, afterEventId: 5 }, /^getActivityEvents: begin\/end and afterEventId cannot be combined/],
      [{ organizationId: SEEDED.org, recent: true, afterEventId: 5 }, /^getActivityEvents: afterEventId and recent cannot be combined/],
      [{ organizationId: SEEDED.org, end: 5 }, /^getActivityEvents: 'end' needs 'begin'/],
      [
        { organizationId: SEEDED.org, begin: 10, end: 5 },
        /^getActivityEvents: invalid argument 'end': must be later than 'begin' \(10\), got 5$/,
      ],
      [
        { organizationId: SEEDED.org, begin: "yesterday" },
        /^getActivityEvents: invalid argument 'begin': must be unix milliseconds, a Date or an ISO 8601 time, got "yesterday"$/,
      ],
      [
        { organizationId: SEEDED.org, recent: true, limit: 20000 },
        /^getActivityEvents: invalid argument 'limit': must be an integer from 1 to 10000, got 20000$/,
      ],
    ];
    s.emu.traffic.log.reset();
    for (const [args, re] of cases) {
      const err = await failure(data.getActivityEvents(args, s.as("orgAdmin")));
      expect(err.message).toMatch(re);
    }
    expect(s.emu.traffic.log.list()).toHaveLength(0);
  });
});

describe("activity event paging against a service that repeats boundary events", () => {
  const scripted = useScriptedServer();
  const key = "ra.TESTKEY1.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRST";
  const settings = () => ({ baseUrl: scripted.server.url, apiKey: key, requestsPerSecond: 1000 });
  afterAll(async () => {
    await getClient(settings()).close();
  });

  const ev = (id: number, timestamp: number) => ({
    id,
    timestamp,
    type: "USER_ADDED",
    userId: 1,
    organizationId: 7,
    description: "x",
    data: {},
  });
  const opts = () => ({ client: getClient(settings()) });

  it("E10: a next page that begins at the boundary timestamp again repeats nothing", async () => {
    const { server } = scripted;
    const base = "/v1/organizations/7/events";
    server.expect(
      {
        method: "GET",
        path: `${base}?begin=0&end=100&limit=2`,
        reply: {
          status: 200,
          json: { data: [ev(1, 10), ev(2, 20), ev(3, 20)], links: { next: `${server.url}${base}?begin=20&end=100&limit=2` } },
        },
      },
      {
        method: "GET",
        path: `${base}?begin=20&end=100&limit=2`,
        // The boundary group again, then one more, and an event outside the range the service should not have sent.
        reply: { status: 200, json: { data: [ev(2, 20), ev(3, 20), ev(4, 30), ev(5, 100)], links: { next: null } } },
      },
    );
    const res = await data.getActivityEvents({ organizationId: 7, begin: 0, end: 100, limit: 2 }, opts());
    expect(res.events.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(server.errors).toEqual([]);
    expect(server.pending).toBe(0);
  });

  it("E11: pages are followed and a repeated event appears once", async () => {
    const { server } = scripted;
    const base = "/v1/organizations/7/events/after";
    server.expect(
      {
        method: "GET",
        path: `${base}/0?limit=2`,
        reply: { status: 200, json: { data: [ev(1, 10), ev(2, 20)], links: { next: `${server.url}${base}/1?limit=2` } } },
      },
      {
        method: "GET",
        path: `${base}/1?limit=2`,
        reply: { status: 200, json: { data: [ev(2, 20), ev(3, 30)], links: { next: null } } },
      },
    );
    const res = await data.getActivityEvents({ organizationId: 7, afterEventId: 0, limit: 2 }, opts());
    expect(res.events.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(res.lastEventId).toBe(3);
    expect(server.errors).toEqual([]);
  });
});
