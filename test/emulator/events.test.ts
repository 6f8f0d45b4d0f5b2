/**
 * The activity log (model/eventLog.ts): ordering, the shared-timestamp page rule, E11/E12
 * reads, redaction and seeding; then E10, E11 and E12 over HTTP on the seeded world.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { EventLog, STRADDLE_START, redactForParent, seedEvents } from "../../emulator/model/eventLog";
import type { EventRecord } from "../../emulator/model/records";
import { api, useEmulator } from "../support/emulatorHttp";

const ev = (organizationId = 1) => ({ type: "USER_ADDED", userId: 7, organizationId, description: "x", data: { a: 1 } });

/** Every event of an organization in [begin, end), read page by page as a client would. */
function readAllPages(log: EventLog, orgId: number, begin: number, end: number, limit: number) {
  const seen: EventRecord[] = [];
  const pageSizes: number[] = [];
  let cursor: number | null = begin;
  while (cursor !== null) {
    const page = log.range([orgId], cursor, end, limit);
    seen.push(...page.events);
    pageSizes.push(page.events.length);
    cursor = page.nextBegin;
  }
  return { seen, pageSizes };
}

describe("EventLog", () => {
  it("assigns increasing ids and the given unix-ms timestamp", () => {
    const log = new EventLog();
    const a = log.append(ev(), 1000);
    const b = log.append(ev(), 1000);
    expect([a.id, b.id]).toEqual([1, 2]);
    expect(a.timestamp).toBe(1000);
    // A log over an existing array continues after its largest id, or uses the given allocator.
    expect(new EventLog([a, b]).append(ev(), 5).id).toBe(3);
    let n = 100;
    expect(new EventLog([], () => n++).append(ev(), 5).id).toBe(100);
  });

  it("reads a range with begin inclusive and end exclusive, by (timestamp, id), for the given organizations", () => {
    const log = new EventLog();
    log.append(ev(1), 30);
    log.append(ev(1), 10);
    log.append(ev(2), 20);
    log.append(ev(1), 20);
    const page = log.range([1], 10, 30, 10);
    expect(page.events.map((e) => [e.timestamp, e.id])).toEqual([
      [10, 2],
      [20, 4],
    ]);
    expect(page.nextBegin).toBeNull();
    expect(log.range([1, 2], 0, 100, 10).events.map((e) => e.id)).toEqual([2, 3, 4, 1]);
  });

  it("never splits events sharing a timestamp: the page grows past limit and the next begins after it", () => {
    const log = new EventLog();
    for (const t of [1, 2, 3, 3, 3, 3, 4, 5]) log.append(ev(), t);
    const first = log.range([1], 0, 10, 3);
    expect(first.events.map((e) => e.timestamp)).toEqual([1, 2, 3, 3, 3, 3]);
    expect(first.nextBegin).toBe(4);
    const second = log.range([1], first.nextBegin!, 10, 3);
    expect(second.events.map((e) => e.timestamp)).toEqual([4, 5]);
    expect(second.nextBegin).toBeNull();
  });

  it("loses and repeats no event when paging across shared timestamps, whatever the limit", () => {
    const log = new EventLog();
    for (const t of [1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6, 6, 7]) log.append(ev(), t);
    for (let limit = 1; limit <= 15; limit++) {
      const { seen } = readAllPages(log, 1, 0, 100, limit);
      expect(seen.map((e) => e.id)).toEqual(log.events.map((e) => e.id));
    }
  });

  it("reads after an event id, by id, with the next cursor", () => {
    const log = new EventLog();
    for (let i = 0; i < 5; i++) log.append(ev(), 100 - i);
    const page = log.after([1], 1, 2);
    expect(page.events.map((e) => e.id)).toEqual([2, 3]);
    expect(page.nextAfter).toBe(3);
    expect(log.after([1], 3, 2)).toMatchObject({ nextAfter: null });
    expect(log.after([1], 3, 2).events.map((e) => e.id)).toEqual([4, 5]);
  });

  it("reads the most recent events, oldest first", () => {
    const log = new EventLog();
    for (const t of [5, 1, 9, 3]) log.append(ev(), t);
    expect(log.recent([1], 2).map((e) => e.timestamp)).toEqual([5, 9]);
    expect(log.recent([1], 10)).toHaveLength(4);
    expect(log.recent([2], 10)).toEqual([]);
  });

  it("redacts data and description for a parent organization key", () => {
    const e = new EventLog().append(ev(), 1);
    expect(redactForParent(e)).toEqual({ ...e, data: null, description: null });
    expect(e.data).toEqual({ a: 1 }); // the stored event is untouched
  });

  it("round-trips through JSON", () => {
    const log = new EventLog();
    log.append(ev(), 1);
    log.append(ev(), 2);
    const copy = EventLog.fromJSON(JSON.parse(JSON.stringify(log)));
    expect(copy.events).toEqual(log.events);
    expect(copy.append(ev(), 3).id).toBe(3);
  });
});

describe("seedEvents", () => {
  const now = Date.parse("2024-06-20T12:00:00Z");
  const orgs = [
    { id: 101, userIds: [1001, 1002] },
    { id: 102, userIds: [] },
  ];

  it("is deterministic and spans the year before now", () => {
    const a = new EventLog();
    seedEvents(a, 3, orgs, now);
    const b = new EventLog();
    seedEvents(b, 3, orgs, now);
    expect(b.events).toEqual(a.events);
    expect(a.events.filter((e) => e.organizationId === 101)).toHaveLength(1500);
    expect(a.events.filter((e) => e.organizationId === 102)).toHaveLength(120);
    for (const e of a.events) {
      expect(e.timestamp).toBeGreaterThanOrEqual(now - 365 * 86_400_000);
      expect(e.timestamp).toBeLessThan(now);
    }
    // Ids follow time.
    const byTime = [...a.events].sort((x, y) => x.timestamp - y.timestamp || x.id - y.id);
    expect(byTime.map((e) => e.id)).toEqual(a.events.map((e) => e.id));
  });

  it("has several shared-timestamp groups, one straddling the default page boundary, and pages without loss", () => {
    const log = new EventLog();
    seedEvents(log, 3, orgs, now);
    const busy = log.range([101], 0, now + 1, 100_000).events;
    const counts = new Map<number, number>();
    for (const e of busy) counts.set(e.timestamp, (counts.get(e.timestamp) ?? 0) + 1);
    expect([...counts.values()].filter((c) => c > 1).length).toBeGreaterThanOrEqual(3);
    expect(busy[STRADDLE_START].timestamp).toBe(busy[STRADDLE_START + 4].timestamp);
    expect(busy[999].timestamp).toBe(busy[1000].timestamp);

    const { seen, pageSizes } = readAllPages(log, 101, now - 366 * 86_400_000, now + 1, 1000);
    expect(pageSizes[0]).toBeGreaterThan(1000); // the group made the first page longer than limit
    expect(seen.map((e) => e.id)).toEqual(busy.map((e) => e.id));
    expect(new Set(seen.map((e) => e.id)).size).toBe(1500);
  });
});

describe("activity log over HTTP (E10, E11, E12)", () => {
  const emu = useEmulator();
  const get = (role: string, path: string) => api(emu.url, emu.keys[role], "GET", path);

  it("E10 pages a year of events with the default limit, never splitting a shared timestamp, losing or repeating nothing", async () => {
    const now = emu.store.clock.now();
    let next: string | null = `/v1/organizations/${SEEDED.org}/events?begin=${now - 400 * 86_400_000}&end=${now + 1}`;
    const ids: number[] = [];
    const sizes: number[] = [];
    while (next) {
      const r = await get("orgAdmin", next);
      expect(r.status).toBe(200);
      ids.push(...r.body.data.map((e: any) => e.id));
      sizes.push(r.body.data.length);
      next = r.body.links.next;
    }
    expect(sizes[0]).toBeGreaterThan(1000); // the seeded group straddling the page boundary
    expect(new Set(ids).size).toBe(ids.length);
    const all = await get("orgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=10000`);
    expect(ids).toEqual(all.body.data.events.map((e: any) => e.id));
    expect(ids.length).toBeGreaterThanOrEqual(1500);
  });

  it("E11 reads after an event id and E12 the most recent, with data and description for an org admin", async () => {
    const first = await get("orgAdmin", `/v1/organizations/${SEEDED.org}/events/after/0?limit=5`);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.data[0].data).not.toBeNull();
    const second = await get("orgAdmin", first.body.links.next);
    expect(second.body.data[0].id).toBeGreaterThan(first.body.data[4].id);
    const recent = await get("orgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    expect(recent.body.data.events).toHaveLength(3);
    expect(typeof recent.body.data.events[0].description).toBe("string");
  });

  it("nulls data and description for a parent organization key, on every organization, and refuses a member", async () => {
    const r = await get("parentOrgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    expect(r.status).toBe(200);
    for (const e of r.body.data.events) expect(e).toMatchObject({ data: null, description: null });
    // Every event read with a parent organization key, its own organization's included.
    const own = await get("parentOrgAdmin", `/v1/organizations/${SEEDED.parentOrg}/events/after/0?limit=50`);
    expect(own.status).toBe(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    for (const e of own.body.data) expect(e).toMatchObject({ organizationId: SEEDED.parentOrg, data: null, description: null });
    // An organization key of an organization without sub-organizations reads its own events whole.
    const leaf = await get("orgKey", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    expect(typeof leaf.body.data.events[0].description).toBe("string");
    // A user who is org admin of the parent reads the parent's own log whole, a sub-organization's redacted.
    const parentOwn = await get("parentAdminUser", `/v1/organizations/${SEEDED.parentOrg}/events/recent?limit=3`);
    expect(typeof parentOwn.body.data.events[0].description).toBe("string");
    const parentSub = await get("parentAdminUser", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    for (const e of parentSub.body.data.events) expect(e).toMatchObject({ data: null, description: null });
    expect((await get("member", `/v1/organizations/${SEEDED.org}/events/recent`)).status).toBe(403);
    expect((await get("orgAdmin", `/v1/organizations/${SEEDED.org}/events?begin=10&end=5`)).status).toBe(400);
  });
});
