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
import { z } from "zod";
import { params } from "../../contract";
import type { ActivityEvent } from "../../contract/types";
import { idArg, numberArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import type { GetActivityEventsArgs, TimeInput } from "./argTypes.generated";

export type { GetActivityEventsArgs, TimeInput };

const TIME_RULE = "must be unix milliseconds, a Date or an ISO 8601 time";

/** Unix milliseconds of a time argument, or undefined when it is none (or outside the contract's unix-ms range). */
function toMillis(value: number | string | Date): number | undefined {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === "number"
        ? value
        : /^\d+$/.test(value.trim())
          ? Number(value)
          : Date.parse(value);
  return params.unixMs.safeParse(ms).success ? ms : undefined;
}

/**
 * A point in time: unix milliseconds, a Date, or an ISO 8601 string.
 * @inputType TimeInput
 */
const timeArg = z.union([z.number(), z.string(), z.date()], { error: TIME_RULE }).transform((value, ctx) => {
  const ms = toMillis(value);
  if (ms === undefined) ctx.addIssue({ code: "custom", message: TIME_RULE });
  return ms ?? z.NEVER;
});

const USAGE =
  "give begin (and optionally end) for a time range, afterEventId for the events after an event, or recent: true for the most recent events";

/**
 * getActivityEvents arguments: give `begin` (and optionally `end`), or `afterEventId`, or `recent: true`.
 * @inputType GetActivityEventsArgs
 */
const getActivityEventsArgs = z
  .strictObject({
    /** The organization whose activity log to read. */
    organizationId: idArg,
    /** Range mode (`GET /v1/organizations/{orgId}/events`): the first instant, inclusive. */
    begin: timeArg.optional(),
    /** Range mode (`GET /v1/organizations/{orgId}/events`): the end, exclusive. Defaults to now (this machine's clock) plus one millisecond. */
    end: timeArg.optional(),
    /** After mode (`GET /v1/organizations/{orgId}/events/after/{eventId}`): every event with an id after this one. */
    afterEventId: numberArg(params.after.unwrap()).optional(),
    /** Recent mode (`GET /v1/organizations/{orgId}/events/recent`): the `limit` most recent events. */
    recent: z.boolean().optional(),
    /** Range and after modes: events per page (1..10000, default 1000); every page is read. Recent mode: how many events (default 1000). */
    limit: numberArg(params.eventLimit.unwrap()).optional(),
    /** Keep only events of these types (applied after reading). */
    types: z.array(z.string()).optional(),
    /** Keep only events by this user (applied after reading). */
    userId: idArg.optional(),
  })
  // Exactly one mode, and a range that is not empty: one line each, before anything is sent.
  .superRefine((a, ctx) => {
    const hasRange = a.begin !== undefined || a.end !== undefined;
    const chosen = [hasRange && "begin/end", a.afterEventId !== undefined && "afterEventId", a.recent === true && "recent"].filter(Boolean);
    if (chosen.length === 0) ctx.addIssue({ code: "custom", message: `no events selected: ${USAGE}` });
    else if (chosen.length > 1) ctx.addIssue({ code: "custom", message: `${chosen.join(" and ")} cannot be combined: ${USAGE}` });
    else if (hasRange && a.begin === undefined) ctx.addIssue({ code: "custom", message: `'end' needs 'begin': ${USAGE}` });
    else if (typeof a.begin === "number" && typeof a.end === "number" && a.end <= a.begin) {
      ctx.addIssue({ code: "custom", path: ["end"], message: `must be later than 'begin' (${a.begin})` });
    } else if (typeof a.begin === "number" && a.end === undefined && a.begin >= defaultEnd()) {
      ctx.addIssue({ code: "custom", path: ["begin"], message: "must be earlier than now when 'end' is left out" });
    }
  });

/** `end` when left out: now (this machine's clock) plus one millisecond, so that an event of this millisecond is included. */
function defaultEnd(): number {
  return Date.now() + 1;
}

/** Which endpoint answered. */
export type ActivityEventsMode = "range" | "after" | "recent";

export interface GetActivityEventsResult {
  /** The organization asked about. */
  organizationId: number;
  /** range (`GET /v1/organizations/{orgId}/events`), after (`GET /v1/organizations/{orgId}/events/after/{eventId}`) or recent (`GET /v1/organizations/{orgId}/events/recent`). */
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

/**
 * Reads an organization's activity events (org admin or parent org admin): every event in a
 * time range (`GET /v1/organizations/{orgId}/events`, all pages), every event after an event id (`GET /v1/organizations/{orgId}/events/after/{eventId}`, all pages), or the most
 * recent ones (`GET /v1/organizations/{orgId}/events/recent`). No event is lost or repeated across pages.
 */
export const getActivityEvents: DataSourceFn<GetActivityEventsArgs, GetActivityEventsResult> = defineDataSource({
  name: "getActivityEvents",
  args: getActivityEventsArgs,
  read: async (args, { client, reading, callOptions }) => {
    const { organizationId } = args;
    // The schema let exactly one mode through.
    const mode: ActivityEventsMode = args.begin !== undefined ? "range" : args.afterEventId !== undefined ? "after" : "recent";
    const limit = args.limit ?? 1000;
    const byId = new Map<number, ActivityEvent>();
    const keep = (e: ActivityEvent) => {
      if (!byId.has(e.id)) byId.set(e.id, e);
    };
    const result: GetActivityEventsResult = { organizationId, mode, events: [], lastEventId: null };

    if (mode === "range") {
      const begin = args.begin!;
      const end = args.end ?? Math.max(defaultEnd(), begin + 1); // the schema checked begin against now a moment ago
      Object.assign(result, { begin, end });
      await reading(`the events of organization ${organizationId} from ${iso(begin)} to ${iso(end)}`, async () => {
        for await (const e of client.paginate("GetOrganizationEvents", { orgId: organizationId, begin, end, limit }, callOptions)) {
          if (e.timestamp >= begin && e.timestamp < end) keep(e);
        }
      });
    } else if (mode === "after") {
      const afterEventId = args.afterEventId!;
      result.afterEventId = afterEventId;
      await reading(`the events of organization ${organizationId} after event ${afterEventId}`, async () => {
        for await (const e of client.paginate(
          "GetOrganizationEventsAfter",
          { orgId: organizationId, eventId: afterEventId, limit },
          callOptions,
        )) {
          if (e.id > afterEventId) keep(e);
        }
      });
    } else {
      const data = await reading(`the most recent events of organization ${organizationId}`, () =>
        client.call("GetRecentOrganizationEvents", { orgId: organizationId, limit }, undefined, callOptions),
      );
      data.events.forEach(keep);
    }

    const all = [...byId.values()];
    all.sort(mode === "after" ? (a, b) => a.id - b.id : (a, b) => a.timestamp - b.timestamp || a.id - b.id);
    result.lastEventId = all.reduce<number | null>((max, e) => (max === null || e.id > max ? e.id : max), null);
    const types = args.types === undefined ? undefined : new Set(args.types);
    result.events = all.filter(
      (e) => (types === undefined || types.has(e.type)) && (args.userId === undefined || e.userId === args.userId),
    );
    return result;
  },
});

/** The Output form of getActivityEvents, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getActivityEventsOutput = outputForm(getActivityEvents);

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
