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
