/**
 * The organization activity log as one data source over E10 (time range), E11 (after an event
 * id) and E12 (most recent).
 *
 * Paging: E10 and E11 pages are followed through `links.next` (the service's own cursor; for
 * E10 it carries the next `begin`) until it is null. An E10 page may hold more than `limit`
 * events when events share a timestamp, so that a page never ends inside such a group. Events
 * are de-duplicated by id in any case, so a service that repeats the boundary group on the next
 * page loses and repeats nothing either, and range results are kept to begin <= timestamp < end.
 */
import type { ActivityEvent } from "../../contract";
import { argumentError, callOptions, clientFor, outputForm, reading, requireId, type DataSourceOptions } from "./dataSource";

/** A point in time: unix milliseconds, a Date, or an ISO 8601 string. */
export type TimeInput = number | string | Date;

/** getActivityEvents arguments: give `begin` (and optionally `end`), or `afterEventId`, or `recent: true`. */
export interface GetActivityEventsArgs {
  organizationId: number;
  /** Range mode (E10): the first instant, inclusive. */
  begin?: TimeInput;
  /** Range mode (E10): the end, exclusive. Defaults to now (this machine's clock) plus one millisecond. */
  end?: TimeInput;
  /** After mode (E11): every event with an id after this one. */
  afterEventId?: number;
  /** Recent mode (E12): the `limit` most recent events. */
  recent?: boolean;
  /** Range and after modes: events per page (1..10000, default 1000); every page is read. Recent mode: how many events (default 1000). */
  limit?: number;
  /** Keep only events of these types (applied after reading). */
  types?: string[];
  /** Keep only events by this user (applied after reading). */
  userId?: number;
}

/** Which endpoint answered. */
export type ActivityEventsMode = "range" | "after" | "recent";

export interface GetActivityEventsResult {
  /** The organization asked about. */
  organizationId: number;
  /** range (E10), after (E11) or recent (E12). */
  mode: ActivityEventsMode;
  /** Range mode: the begin used, unix ms. */
  begin?: number;
  /** Range mode: the end used, unix ms. */
  end?: number;
  /** After mode: the id the read started after. */
  afterEventId?: number;
  /**
   * The events, each once, after the filters. Range and recent: ordered by (timestamp, id);
   * after: ordered by id. `description` and `data` are null when the key is a parent organization's.
   */
  events: ActivityEvent[];
  /**
   * The largest event id read (before the filters), or null when none: pass it as
   * `afterEventId` next time to read only newer events.
   */
  lastEventId: number | null;
}

const DS = "getActivityEvents";

function toMillis(name: string, value: TimeInput): number {
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") ms = value;
  else if (typeof value === "string" && /^\d+$/.test(value.trim())) ms = Number(value);
  else if (typeof value === "string") ms = Date.parse(value);
  else ms = NaN;
  if (!Number.isFinite(ms) || !Number.isInteger(ms) || ms < 0) {
    throw argumentError(DS, `'${name}' must be unix milliseconds, a Date or an ISO 8601 time, got ${JSON.stringify(value)}`);
  }
  return ms;
}

/** Checks the argument combination and returns the mode; throws one clear line otherwise. */
function modeOf(args: GetActivityEventsArgs): ActivityEventsMode {
  const hasRange = args.begin !== undefined || args.end !== undefined;
  const hasAfter = args.afterEventId !== undefined;
  const hasRecent = args.recent === true;
  const chosen = [hasRange && "begin/end", hasAfter && "afterEventId", hasRecent && "recent"].filter(Boolean);
  const usage = "give begin (and optionally end) for a time range, afterEventId for the events after an event, or recent: true for the most recent events";
  if (chosen.length === 0) throw argumentError(DS, `no events selected: ${usage}`);
  if (chosen.length > 1) throw argumentError(DS, `${chosen.join(" and ")} cannot be combined: ${usage}`);
  if (hasRange && args.begin === undefined) throw argumentError(DS, `'end' needs 'begin': ${usage}`);
  return hasRange ? "range" : hasAfter ? "after" : "recent";
}

/**
 * Reads an organization's activity events (org admin or parent org admin): every event in a
 * time range (E10, all pages), every event after an event id (E11, all pages), or the most
 * recent ones (E12). No event is lost or repeated across pages.
 */
export async function getActivityEvents(args: GetActivityEventsArgs, opts?: DataSourceOptions): Promise<GetActivityEventsResult> {
  const organizationId = requireId(DS, "organizationId", args?.organizationId);
  const mode = modeOf(args);
  if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > 10000)) {
    throw argumentError(DS, `'limit' must be an integer from 1 to 10000, got ${JSON.stringify(args.limit)}`);
  }
  if (args.recent !== undefined && typeof args.recent !== "boolean") {
    throw argumentError(DS, `'recent' must be true or false, got ${JSON.stringify(args.recent)}`);
  }
  const limit = args.limit ?? 1000;
  const client = clientFor(DS, opts);
  const byId = new Map<number, ActivityEvent>();
  const keep = (e: ActivityEvent) => {
    if (!byId.has(e.id)) byId.set(e.id, e);
  };
  const result: GetActivityEventsResult = { organizationId, mode, events: [], lastEventId: null };

  if (mode === "range") {
    const begin = toMillis("begin", args.begin!);
    const end = args.end === undefined ? Date.now() + 1 : toMillis("end", args.end);
    if (end <= begin) throw argumentError(DS, `'end' (${end}) must be later than 'begin' (${begin})`);
    Object.assign(result, { begin, end });
    await reading(DS, `the events of organization ${organizationId} from ${iso(begin)} to ${iso(end)}`, async () => {
      for await (const e of client.paginate("GetOrganizationEvents", { orgId: organizationId, begin, end, limit }, callOptions(opts))) {
        if (e.timestamp >= begin && e.timestamp < end) keep(e);
      }
    });
  } else if (mode === "after") {
    const afterEventId = args.afterEventId!;
    if (!Number.isInteger(afterEventId) || afterEventId < 0) {
      throw argumentError(DS, `'afterEventId' must be a non-negative integer event id, got ${JSON.stringify(afterEventId)}`);
    }
    result.afterEventId = afterEventId;
    await reading(DS, `the events of organization ${organizationId} after event ${afterEventId}`, async () => {
      for await (const e of client.paginate("GetOrganizationEventsAfter", { orgId: organizationId, eventId: afterEventId, limit }, callOptions(opts))) {
        if (e.id > afterEventId) keep(e);
      }
    });
  } else {
    const data = await reading(DS, `the most recent events of organization ${organizationId}`, () =>
      client.call("GetRecentOrganizationEvents", { orgId: organizationId, limit }, undefined, callOptions(opts)),
    );
    data.events.forEach(keep);
  }

  const all = [...byId.values()];
  all.sort(mode === "after" ? (a, b) => a.id - b.id : (a, b) => a.timestamp - b.timestamp || a.id - b.id);
  result.lastEventId = all.reduce<number | null>((max, e) => (max === null || e.id > max ? e.id : max), null);
  const types = args.types === undefined ? undefined : new Set(args.types);
  result.events = all.filter((e) => (types === undefined || types.has(e.type)) && (args.userId === undefined || e.userId === args.userId));
  return result;
}

export const getActivityEventsOutput = outputForm(getActivityEvents);

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
