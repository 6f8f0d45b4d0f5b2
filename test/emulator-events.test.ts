/** The activity log: ordering, the shared-timestamp page rule, E11/E12 reads, redaction and seeding. */
import { describe, expect, it } from "vitest";
import { EventLog, STRADDLE_START, redactForParent, seedEvents } from "../emulator/model/eventLog.js";
import type { EventRecord } from "../emulator/model/records.js";

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
    expect(page.events.map((e) => [e.timestamp, e.id])).toEqual([[10, 2], [20, 4]]);
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
