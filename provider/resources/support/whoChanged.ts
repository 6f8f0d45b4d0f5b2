/**
 * Who changed what, for refresh (issue 27): when a refresh finds a member, grant or invitation
 * changed (or gone) behind the program's back, the activity log says who did it and when. One
 * bounded read per organization per plugin process (E12, the most recent 1,000 events), and only
 * when drift is found, so a refresh that finds nothing sends nothing more.
 */
import type { ActivityEvent } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { describeCause } from "../../failures";

/** How many recent events the one read per organization looks at. */
export const RECENT_EVENTS = 1000;

/** The person (and database) a drifted resource is about, from its state's fields. */
export interface ChangeTarget {
  organizationId?: number;
  databaseId?: number;
  userId?: number | null;
  email?: string;
}

const logs = new Map<string, Promise<ActivityEvent[]>>();
const owners = new Map<string, Promise<number>>();

/** The target of a state, when it names a person (rosters do not: they are left out). */
export function targetOf(state: unknown): ChangeTarget | undefined {
  const s = (state ?? {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  const target: ChangeTarget = {
    organizationId: num(s.organizationId),
    databaseId: num(s.databaseId),
    userId: num(s.userId) ?? null,
    email: typeof s.email === "string" ? s.email.toLowerCase() : undefined,
  };
  if (target.userId === null && target.email === undefined) return undefined;
  if (target.organizationId === undefined && target.databaseId === undefined) return undefined;
  return target;
}

/** At most this many people are named for one drifted roster (the rest are counted). */
export const MAX_NAMED = 20;

type Entries = Map<string, { target: ChangeTarget; value: string }>;

/** A roster's people by key (email, or user id on a database), each with its live entry as text. */
function rosterEntries(state: Record<string, unknown>): Entries | undefined {
  const out: Entries = new Map();
  const orgId = typeof state.organizationId === "number" ? state.organizationId : undefined;
  const dbId = typeof state.databaseId === "number" ? state.databaseId : undefined;
  const map = (state.members ?? state.users) as Record<string, Record<string, unknown>> | undefined;
  if (!map || typeof map !== "object") return undefined;
  const add = (key: string, entry: Record<string, unknown>) => {
    const userId = typeof entry.userId === "number" ? entry.userId : /^\d+$/.test(key) && dbId !== undefined ? Number(key) : null;
    const target: ChangeTarget =
      dbId !== undefined ? { databaseId: dbId, userId } : { organizationId: orgId, userId, email: key.toLowerCase() };
    out.set(key.toLowerCase(), { target, value: JSON.stringify(entry) });
  };
  for (const [key, entry] of Object.entries(map)) add(key, entry);
  for (const u of (state.unmanaged ?? []) as Record<string, unknown>[]) add(String(u.email ?? u.userId), u);
  return out;
}

/**
 * Who a drift is about: the person of a per-person resource, or, for a roster, each person whose
 * entry differs between the stored and the live state (added, changed or gone).
 */
export function targetsOf(stored: unknown, found: unknown): ChangeTarget[] {
  const one = targetOf(stored);
  if (one) return [one];
  const before = rosterEntries((stored ?? {}) as Record<string, unknown>);
  const after = found === undefined ? undefined : rosterEntries(found as Record<string, unknown>);
  if (!before || !after) return [];
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  return keys.filter((k) => before.get(k)?.value !== after.get(k)?.value).map((k) => (after.get(k) ?? before.get(k))!.target);
}

/** One line for a roster's drift: each person who changed and who changed them (MAX_NAMED at most). */
export async function whoChangedPeople(client: ReviewAdminClient, targets: ChangeTarget[]): Promise<string> {
  const named = await Promise.all(
    targets.slice(0, MAX_NAMED).map(async (t) => `${t.email ?? `user ${t.userId}`}: ${await whoChanged(client, t)}`),
  );
  const more = targets.length > MAX_NAMED ? `; and ${targets.length - MAX_NAMED} more` : "";
  return named.join("; ") + more;
}

function recentEvents(client: ReviewAdminClient, orgId: number): Promise<ActivityEvent[]> {
  const key = `${client.baseUrl} ${orgId}`;
  let p = logs.get(key);
  if (!p) {
    p = client.call("GetRecentOrganizationEvents", { orgId, limit: RECENT_EVENTS }).then((d) => d.events);
    // A failed read is not kept: the next drift may try again.
    p.catch(() => logs.delete(key));
    logs.set(key, p);
  }
  return p;
}

function ownerOf(client: ReviewAdminClient, databaseId: number): Promise<number> {
  const key = `${client.baseUrl} ${databaseId}`;
  let p = owners.get(key);
  if (!p) {
    p = client.call("GetDatabase", { databaseId }).then((d) => d.owningOrganizationId);
    p.catch(() => owners.delete(key));
    owners.set(key, p);
  }
  return p;
}

function names(e: ActivityEvent, t: ChangeTarget): boolean {
  const d = e.data ?? {};
  const person =
    (t.userId != null && d.userId === t.userId) ||
    (t.email !== undefined && typeof d.email === "string" && d.email.toLowerCase() === t.email);
  return person && (t.databaseId === undefined ? d.databaseId === undefined : d.databaseId === t.databaseId);
}

/** The event types that change this kind of target. */
function kinds(t: ChangeTarget): (type: string) => boolean {
  return t.databaseId !== undefined ? (type) => type.startsWith("DATABASE_USER_") : (type) => /^(USER_|INVITATION_)/.test(type);
}

/**
 * One sentence for the refresh's message: "changed at <time> by user <id> (<type>)", with a parent
 * organization key "…, details hidden for a parent key", or why the log cannot say. Never throws.
 */
export async function whoChanged(client: ReviewAdminClient, t: ChangeTarget): Promise<string> {
  try {
    const orgId = t.organizationId ?? (await ownerOf(client, t.databaseId!));
    const events = await recentEvents(client, orgId);
    const redacted = events.length > 0 && events.every((e) => e.data === null);
    const ofKind = events.filter((e) => kinds(t)(e.type));
    const e = redacted ? ofKind.at(-1) : ofKind.filter((x) => names(x, t)).at(-1);
    if (!e) return `no event among the ${RECENT_EVENTS} most recent of organization ${orgId}'s activity log names this change`;
    const at = new Date(e.timestamp).toISOString();
    const by = e.userId == null ? "an unnamed actor" : `user ${e.userId}`;
    return redacted ? `changed at ${at} by ${by}, details hidden for a parent key` : `changed at ${at} by ${by} (${e.type})`;
  } catch (err) {
    return `who changed it is unknown: the activity log could not be read (${describeCause(err)})`;
  }
}
