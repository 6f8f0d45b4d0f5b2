/**
 * The organization activity log (E10, E11, E12): paging rules, parent-key redaction and a year
 * of deterministic seeded events.
 *
 * An EventLog is a view over an array of EventRecord (records.ts). The world keeps that array
 * and its id counter, and `store.events` wraps them. Nothing is copied, so the world's JSON
 * snapshot stays the one place the log is saved.
 *
 * Choices where the spec is silent ("ordering of returned events and the unit of the timestamp
 * field: not shown"):
 * - Timestamps are unix milliseconds; ids increase in append order.
 * - E10 and E12 order by (timestamp, id), oldest first; E11 orders by id.
 * - E10 pages: a page holds up to `limit` events, plus every further event sharing the last
 *   event's timestamp (the spec: "when events share a timestamp the page may hold more than
 *   limit events"), so the next page can begin at last timestamp + 1 without losing or
 *   repeating an event.
 * - E12 returns the most recent `limit` events, oldest first, so every endpoint reads the same way.
 */
import { prng } from "./random";
import type { EventRecord } from "./records";

/** An event to append: everything but the id and timestamp, which the log assigns. */
export interface NewEvent {
  type: string;
  userId: number | null;
  organizationId: number;
  description: string;
  data: Record<string, unknown>;
}

/** An event as the API shows it: data and description may be null (parent organization key). */
export type EventView = {
  id: number;
  timestamp: number;
  type: string;
  userId: number | null;
  organizationId: number;
  description: string | null;
  data: Record<string, unknown> | null;
};

/** One E10 page and where the next one begins (null on the last page). */
export interface RangePage {
  events: EventRecord[];
  nextBegin: number | null;
}

/** One E11 page and the event id the next one starts after (null on the last page). */
export interface AfterPage {
  events: EventRecord[];
  nextAfter: number | null;
}

function byTimeThenId(a: EventRecord, b: EventRecord): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

/** The activity log: append, the three reads of the API, and JSON. */
export class EventLog {
  private readonly allocateId: () => number;

  /**
   * @param events the array to read and append to (kept by reference: pass the store's).
   * @param allocateId the id source; by default one more than the largest id in `events`.
   */
  constructor(
    readonly events: EventRecord[] = [],
    allocateId?: () => number,
  ) {
    if (allocateId) {
      this.allocateId = allocateId;
    } else {
      let next = events.reduce((m, e) => Math.max(m, e.id), 0) + 1;
      this.allocateId = () => next++;
    }
  }

  /** Appends an event at `now` (unix ms) with the next id. */
  append(event: NewEvent, now: number): EventRecord {
    const record: EventRecord = {
      id: this.allocateId(),
      timestamp: now,
      type: event.type,
      userId: event.userId,
      organizationId: event.organizationId,
      description: event.description,
      data: event.data,
    };
    this.events.push(record);
    return record;
  }

  /** Every event, in append (id) order. */
  all(): readonly EventRecord[] {
    return this.events;
  }

  /** Events of the organizations, in append (id) order. */
  of(orgIds: readonly number[]): EventRecord[] {
    const wanted = new Set(orgIds);
    return this.events.filter((e) => wanted.has(e.organizationId));
  }

  /**
   * E10: events with begin <= timestamp < end, by (timestamp, id), cut after `limit` events but
   * never inside a group of events sharing a timestamp.
   */
  range(orgIds: readonly number[], begin: number, end: number, limit: number): RangePage {
    const inRange = this.of(orgIds)
      .filter((e) => e.timestamp >= begin && e.timestamp < end)
      .sort(byTimeThenId);
    if (inRange.length <= limit) return { events: inRange, nextBegin: null };
    let cut = limit;
    const lastTimestamp = inRange[limit - 1].timestamp;
    while (cut < inRange.length && inRange[cut].timestamp === lastTimestamp) cut++;
    return { events: inRange.slice(0, cut), nextBegin: cut < inRange.length ? lastTimestamp + 1 : null };
  }

  /** E11: events with an id above `eventId`, by id, at most `limit`. */
  after(orgIds: readonly number[], eventId: number, limit: number): AfterPage {
    const later = this.of(orgIds)
      .filter((e) => e.id > eventId)
      .sort((a, b) => a.id - b.id);
    const events = later.slice(0, limit);
    return { events, nextAfter: later.length > limit ? events[events.length - 1].id : null };
  }

  /** E12: the `limit` most recent events, oldest first. */
  recent(orgIds: readonly number[], limit: number): EventRecord[] {
    const all = this.of(orgIds).sort(byTimeThenId);
    return all.slice(Math.max(0, all.length - limit));
  }

  /** The events as plain JSON. */
  toJSON(): EventRecord[] {
    return this.events;
  }

  /** A log from toJSON's output. */
  static fromJSON(events: EventRecord[]): EventLog {
    return new EventLog(structuredClone(events));
  }
}

/** An event as the API shows it; with a parent organization key, data and description are null. */
export function eventView(event: EventRecord, redact: boolean): EventView {
  return redact ? redactForParent(event) : { ...event };
}

/** The event as a parent organization key sees it: data and description null. */
export function redactForParent(event: EventRecord): EventView {
  return { ...event, description: null, data: null };
}

/** What seedEvents needs to know of an organization. */
export interface SeedOrganization {
  id: number;
  /** User ids that act in the organization (event actors); may be empty. */
  userIds: readonly number[];
}

/** How many events seedEvents writes per organization. */
export interface SeedEventsOptions {
  /** Events of the first organization: over a default page (1000) so paging shows. Default 1500. */
  busyCount?: number;
  /** Events of every other organization. Default 120. */
  count?: number;
}

const DAY = 86_400_000;
const EVENT_TYPES = [
  "USER_ADDED",
  "USER_UPDATED",
  "USER_REMOVED",
  "INVITATION_SENT",
  "INVITATION_RESENT",
  "INVITATION_DELETED",
  "SAML_UPDATED",
  "API_KEY_CREATED",
  "API_KEY_REVOKED",
] as const;

/** Index where seedEvents starts a shared-timestamp group straddling the default page boundary. */
export const STRADDLE_START = 997;

/**
 * Appends a year (ending before `now`) of deterministic events for each organization, in time
 * order. The first organization gets `busyCount` events (default 1500) so that a default page
 * (1000) is not enough; its events at indexes STRADDLE_START..STRADDLE_START+4 share one
 * timestamp, a group straddling the first page boundary. Every organization also gets a few
 * other groups of 2 to 6 events sharing a timestamp (as a bulk add produces).
 */
export function seedEvents(
  log: EventLog,
  seed: number | (() => number),
  orgs: readonly SeedOrganization[],
  now: number,
  options: SeedEventsOptions = {},
): EventRecord[] {
  const rng = typeof seed === "number" ? prng(seed) : seed;
  const start = now - 365 * DAY;
  const pending: (NewEvent & { timestamp: number })[] = [];
  orgs.forEach((org, orgIndex) => {
    const count = orgIndex === 0 ? (options.busyCount ?? 1500) : (options.count ?? 120);
    // Distinct increasing timestamps over the year, then some runs made equal.
    const times = Array.from({ length: count }, () => start + Math.floor(rng() * (365 * DAY - 1000)));
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) if (times[i] <= times[i - 1]) times[i] = times[i - 1] + 1;
    const groups: [number, number][] = [];
    for (let g = 0; g < 4 && count > 10; g++) groups.push([Math.floor(rng() * (count - 8)), 2 + Math.floor(rng() * 5)]);
    // Last, so no random group can break it.
    if (count > STRADDLE_START + 5) groups.push([STRADDLE_START, 5]);
    for (const [at, size] of groups) for (let i = at + 1; i < at + size && i < count; i++) times[i] = times[at];
    // Groups may overlap; keep the list non-decreasing.
    for (let i = 1; i < times.length; i++) if (times[i] < times[i - 1]) times[i] = times[i - 1];

    times.forEach((timestamp, i) => {
      const type = EVENT_TYPES[Math.floor(rng() * EVENT_TYPES.length)];
      const actor = org.userIds.length > 0 ? org.userIds[Math.floor(rng() * org.userIds.length)] : null;
      const email = `person-${org.id}-${i}@example.com`;
      pending.push({
        timestamp,
        type,
        userId: actor,
        organizationId: org.id,
        description: describe(type, email),
        data: type.startsWith("SAML") ? { state: "DISABLED" } : type.startsWith("API_KEY") ? { keyId: `K${org.id}${i}` } : { email },
      });
    });
  });
  // Ids follow time, as they would have had the events happened live.
  pending.sort((a, b) => a.timestamp - b.timestamp || a.organizationId - b.organizationId);
  return pending.map(({ timestamp, ...event }) => log.append(event, timestamp));
}

function describe(type: string, email: string): string {
  switch (type) {
    case "USER_ADDED":
      return `${email} was added to the organization`;
    case "USER_UPDATED":
      return `${email} was updated`;
    case "USER_REMOVED":
      return `${email} was removed from the organization`;
    case "INVITATION_SENT":
      return `An invitation was sent to ${email}`;
    case "INVITATION_RESENT":
      return `The invitation to ${email} was sent again`;
    case "INVITATION_DELETED":
      return `The invitation to ${email} was deleted`;
    case "SAML_UPDATED":
      return "SAML settings were updated";
    case "API_KEY_CREATED":
      return "An API key was created";
    default:
      return "An API key was revoked";
  }
}
