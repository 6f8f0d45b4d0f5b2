/**
 * Who changed what, for refresh (issue 27): when a refresh finds a member, grant or invitation
 * changed (or gone) behind the program's back, the activity log says who did it and when. Only
 * when drift is found, so a refresh that finds nothing sends nothing more; and once per
 * organization per plugin process, over the window since the program last applied the resource
 * (its `appliedAt`): E10 from the second after it, so the program's own writes are never named,
 * at most MAX_WINDOW_EVENTS events. A state older than `appliedAt` falls back to the most
 * recent 1,000 events (E12). A later drift with an earlier window reads only the span not read yet.
 */
import deepEqual from "fast-deep-equal";
import type { ActivityEvent } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { eventNamesGrant, normalizeEmail, type Grant } from "../../../contract/grants";
import { describeCause } from "../../failures";
import { compareText } from "../../util";
import { serviceNow } from "../../access/clock";
import { memo, perClient } from "../../access/runCache";
import { describedDatabase } from "../../access/databaseGrants";
import { actorText } from "../../access/orgPeople";

/** How many recent events the fallback read (a state without appliedAt) looks at. */
export const RECENT_EVENTS = 1000;
/** At most this many events are read for one organization's window (10 pages of 10,000). */
export const MAX_WINDOW_EVENTS = 100_000;
const WINDOW_PAGE = 10_000;

/**
 * What this run has read of the log, per client (access/runCache.ts): each organization's recent
 * events and the window read so far (from `begin` on, oldest first).
 */
const reads = perClient(() => ({
  logs: new Map<number, Promise<ActivityEvent[]>>(),
  windows: new Map<number, { begin: number; events: Promise<{ events: ActivityEvent[]; capped: boolean }> }>(),
}));

/**
 * The first instant of the window: the second after `appliedAt` (unix ms, whole seconds). The
 * program's own writes are stamped within appliedAt's second (the Date header drops the
 * milliseconds), and a person in the web app does not act within the same second.
 */
const windowStart = (appliedAt: number | undefined) =>
  appliedAt === undefined || !Number.isFinite(appliedAt) ? undefined : appliedAt + 1000;

/** Whom a drifted resource is about: a grant's scope and subject (contract/grants.ts). */
export type GrantRef = Pick<Grant, "scope" | "subject">;

/** The people of a roster's state by key (email, or user id as text), each with the grant and what the state holds of them. */
export type People = Map<string, { grant: GrantRef; held: unknown }>;

/**
 * What the log is searched for: the grant a drifted resource is about (its scope and subject, the
 * email lower-cased), and the window.
 */
export interface ChangeTarget extends GrantRef {
  /** Unix ms: events from this instant on can be the change (the second after appliedAt); absent: unknown. */
  since?: number;
}

/** The target of a grant, over the window since `appliedAt`. */
export function targetOfGrant(g: GrantRef, appliedAt?: number): ChangeTarget {
  const { email, userId } = g.subject;
  const subject = { ...(email !== undefined ? { email: normalizeEmail(email) } : {}), userId: userId ?? null };
  return { scope: g.scope, subject, since: windowStart(appliedAt) };
}

/** whoChanged's sentence when the log names the change ("changed at ... by Frances Allen <frances@...> (user 1005) (...)"), else "": for lists of people. */
export async function changedBy(client: ReviewAdminClient, t: ChangeTarget): Promise<string> {
  const said = await whoChanged(client, t);
  return said.startsWith("changed at ") ? said : "";
}

/**
 * For a roster's preview: who gave each of `people` (their grants by key, found live, never in the
 * state) their access, by key, when the activity log since `appliedAt` says ("<verb>: changed at
 * ... by Frances Allen <frances@...> (user 1005) (...)"). The first MAX_NAMED at most; nothing for the others.
 */
export async function addedOutside(
  client: ReviewAdminClient,
  people: ReadonlyMap<string, GrantRef>,
  appliedAt: number | undefined,
  verb: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [key, grant] of [...people].slice(0, MAX_NAMED)) {
    const said = await changedBy(client, targetOfGrant(grant, appliedAt));
    if (said) out.set(key, `${verb}: ${said}`);
  }
  return out;
}

/** At most this many people are named for one drifted roster (the rest are counted). */
export const MAX_NAMED = 20;

/**
 * Who a roster's drift is about: each person whose entry differs between the stored and the live
 * state (added, changed or gone), as the roster names them (`people`).
 */
export function driftedTargets(before: People, after: People | undefined, appliedAt?: number): ChangeTarget[] {
  if (!after) return [];
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort(compareText);
  return (
    keys
      // By value, not by text: a stored entry comes back through the engine with its keys reordered.
      .filter((k) => !deepEqual(before.get(k)?.held, after.get(k)?.held))
      .map((k) => targetOfGrant((after.get(k) ?? before.get(k))!.grant, appliedAt))
  );
}

/** One line for a roster's drift: each person who changed and who changed them (MAX_NAMED at most). */
export async function whoChangedPeople(client: ReviewAdminClient, targets: ChangeTarget[]): Promise<string> {
  const named = await Promise.all(
    targets.slice(0, MAX_NAMED).map(async (t) => `${t.subject.email ?? `user ${t.subject.userId}`}: ${await whoChanged(client, t)}`),
  );
  const more = targets.length > MAX_NAMED ? `; and ${targets.length - MAX_NAMED} more` : "";
  return named.join("; ") + more;
}

function recentEvents(client: ReviewAdminClient, orgId: number): Promise<ActivityEvent[]> {
  return memo(reads(client).logs, orgId, () =>
    client.call("GetRecentOrganizationEvents", { orgId, limit: RECENT_EVENTS }).then((d) => d.events),
  );
}

/** E10 over [begin, end), at most `room` events, oldest first; `capped` when there were more. */
async function readRange(client: ReviewAdminClient, orgId: number, begin: number, end: number, room: number) {
  const events: ActivityEvent[] = [];
  for await (const e of client.paginate("GetOrganizationEvents", { orgId, begin, end, limit: WINDOW_PAGE })) {
    if (events.length >= room) return { events, capped: true };
    events.push(e);
  }
  return { events, capped: false };
}

/**
 * The organization's events from `since` to now (the service's clock), read once per plugin
 * process: a window starting later reuses what was read; one starting earlier reads only the
 * span before it.
 */
function eventsSince(client: ReviewAdminClient, orgId: number, since: number): Promise<{ events: ActivityEvent[]; capped: boolean }> {
  const { windows } = reads(client);
  const key = orgId;
  const have = windows.get(key);
  if (have && have.begin <= since) return have.events.then((r) => ({ ...r, events: r.events.filter((e) => e.timestamp >= since) }));
  // The Date header drops the milliseconds: the service's "now" may be up to a second later.
  const end = have ? have.begin : Math.max(serviceNow(client) + 1000, since + 1);
  const events = have
    ? have.events.then(async (later) => {
        const earlier = await readRange(client, orgId, since, end, MAX_WINDOW_EVENTS - later.events.length);
        return { events: [...earlier.events, ...later.events], capped: earlier.capped || later.capped };
      })
    : readRange(client, orgId, since, end, MAX_WINDOW_EVENTS);
  const entry = { begin: since, events };
  // A failed read is not kept: the next drift may try again.
  events.catch(() => {
    if (windows.get(key) === entry) windows.delete(key);
  });
  windows.set(key, entry);
  return events;
}

function ownerOf(client: ReviewAdminClient, databaseId: number): Promise<number> {
  return describedDatabase(client, databaseId).then((d) => d.owningOrganizationId);
}

/** The event types that change this kind of target. */
function kinds(t: ChangeTarget): (type: string) => boolean {
  return t.scope.kind === "database" ? (type) => type.startsWith("DATABASE_USER_") : (type) => /^(USER_|INVITATION_)/.test(type);
}

/**
 * One sentence for the refresh's message: "changed at <time> by <actor> (<type>)", the actor named
 * as the review packet names people (orgPeople.ts `actorText`), with a parent
 * organization key "…, details hidden for a parent key", or why the log cannot say. Never throws.
 */
export async function whoChanged(client: ReviewAdminClient, t: ChangeTarget): Promise<string> {
  try {
    const orgId = t.scope.kind === "organization" ? t.scope.id : await ownerOf(client, t.scope.id);
    const windowed = t.since === undefined ? undefined : await eventsSince(client, orgId, t.since);
    const events = windowed?.events ?? (await recentEvents(client, orgId));
    const redacted = events.length > 0 && events.every((e) => e.data === null);
    const ofKind = events.filter((e) => kinds(t)(e.type));
    const e = redacted ? ofKind.at(-1) : ofKind.filter((x) => eventNamesGrant(x.data, t)).at(-1);
    if (!e && t.since !== undefined)
      return (
        `no event in organization ${orgId}'s activity log since this program last applied it (${new Date(t.since - 1000).toISOString()}) names this change` +
        (windowed?.capped ? ` (only the first ${MAX_WINDOW_EVENTS} events of that window were read)` : "")
      );
    if (!e) return `no event among the ${RECENT_EVENTS} most recent of organization ${orgId}'s activity log names this change`;
    const at = new Date(e.timestamp).toISOString();
    const by = e.userId == null ? "an unnamed actor" : await actorText(client, orgId, e.userId);
    return redacted ? `changed at ${at} by ${by}, details hidden for a parent key` : `changed at ${at} by ${by} (${e.type})`;
  } catch (err) {
    return `who changed it is unknown: the activity log could not be read (${describeCause(err)})`;
  }
}
