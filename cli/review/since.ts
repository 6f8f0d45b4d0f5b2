/**
 * "Since the last review": the lines of access gained, lost and changed between the previous
 * packet and this one, each with who made the change and when, from the activity log between the
 * two "as of" times. An event names its target in its data (userId, email, databaseId); with a
 * parent organization key the data is hidden, so the latest event of the kind the change needs
 * stands in, and the packet says the details are hidden.
 */
import { eventNamesGrant } from "../../contract/grants";
import { personText, type PersonFacts } from "../../contract/people";
import type { ActivityEvent } from "../../contract/types";
import { compareText } from "../../provider/util";
import {
  compareKeys,
  grantOfLine,
  type AccessLine,
  type ReviewChange,
  type ReviewOrganization,
  type ReviewPacket,
  type SinceLastReview,
} from "./format";

type Kind = "gained" | "lost" | "changed";

/** The event types that can make a change of this kind on this line. */
function typesFor(kind: Kind, line: AccessLine): string[] {
  if (line.status === "granted") return kind === "lost" ? ["DATABASE_USER_REMOVED"] : ["DATABASE_USER_UPDATED"];
  if (line.status === "member") return kind === "gained" ? ["USER_ADDED"] : kind === "lost" ? ["USER_REMOVED"] : ["USER_UPDATED"];
  // Invitations: sent, re-sent, deleted, or accepted (the person became a member).
  return kind === "gained"
    ? ["INVITATION_SENT"]
    : kind === "lost"
      ? ["INVITATION_DELETED", "USER_ADDED"]
      : ["INVITATION_RESENT", "INVITATION_SENT"];
}

/** Who the packets know by user id: their name and email. */
export type PeopleById = ReadonlyMap<number, PersonFacts>;

/** The people of the organization in this packet and the previous one, by user id (this one's name wins). */
export function peopleById(...orgs: (ReviewOrganization | undefined)[]): PeopleById {
  const out = new Map<number, PersonFacts>();
  for (const o of [...orgs].reverse())
    for (const p of o?.people ?? [])
      if (p.userId !== null) out.set(p.userId, { name: p.name, email: p.key.includes("@") ? p.key : undefined });
  return out;
}

const at = (e: ActivityEvent) => new Date(e.timestamp).toISOString();
/** The actor by name and email where the packets know them, always with the user id the log gives (contract/people.ts). */
const by = (e: ActivityEvent, people: PeopleById) =>
  e.userId == null ? "an unnamed actor (the service)" : personText({ ...people.get(e.userId), userId: e.userId });

/** "changed at <time> by user <id>", from the latest event that made the change, or why the log cannot say. */
function attribute(
  orgId: number,
  kind: Kind,
  key: string,
  userId: number | null,
  line: AccessLine,
  events: readonly ActivityEvent[],
  redacted: boolean,
  people: PeopleById,
  before?: AccessLine,
): string {
  // An invitation that ran out: time passed, nobody acted (the log has no event for it).
  if (kind === "changed" && before?.status === "invited" && line.status === "invitation-expired")
    return `expired at ${line.expires}: time passed, no one changed it`;
  const types = new Set(typesFor(kind, line));
  const ofKind = events.filter((e) => types.has(e.type));
  if (redacted) {
    const last = ofKind.at(-1);
    if (!last) return "no event of this kind in the activity log since the last review";
    const others = ofKind.length > 1 ? ` (the latest of ${ofKind.length} such events since the last review)` : "";
    return `changed at ${at(last)} by ${by(last, people)}, details hidden for a parent key${others}`;
  }
  const grant = grantOfLine(line, { key, userId }, orgId);
  const last = ofKind.filter((e) => eventNamesGrant(e.data, grant)).at(-1);
  if (!last) {
    return line.status === "granted"
      ? "no event in the activity log names this change (database permissions set through the API are not logged)"
      : "no event in the activity log names this change";
  }
  return `changed at ${at(last)} by ${by(last, people)} (${last.type})`;
}

const sameLine = (a: AccessLine, b: AccessLine) => JSON.stringify(a) === JSON.stringify(b);

/** The "since the last review" section of one organization; `events` are this review's, sorted. */
export function sinceLastReview(
  previous: ReviewPacket,
  now: ReviewOrganization,
  events: readonly ActivityEvent[],
  redacted: boolean,
): SinceLastReview {
  const prevAsOf = Date.parse(previous.asOf);
  const span = events.filter((e) => e.timestamp > prevAsOf);
  const before = previous.organizations.find((o) => o.id === now.id);
  const linesOf = (org: ReviewOrganization | undefined) => {
    const out = new Map<string, { key: string; userId: number | null; line: AccessLine }>();
    for (const p of org?.people ?? [])
      for (const line of p.lines) out.set(`${p.key}\n${line.scope}`, { key: p.key, userId: p.userId, line });
    return out;
  };
  const people = peopleById(now, before);
  const old = linesOf(before);
  const cur = linesOf(now);
  const result: SinceLastReview = { previousAsOf: previous.asOf, gained: [], lost: [], changed: [] };
  const change = (kind: Kind, key: string, userId: number | null, scope: string, b?: AccessLine, a?: AccessLine): ReviewChange => ({
    key,
    scope,
    ...(b ? { before: b } : {}),
    ...(a ? { after: a } : {}),
    attribution: attribute(now.id, kind, key, userId, (a ?? b)!, span, redacted, people, a ? b : undefined),
  });
  for (const [id, c] of cur) {
    const o = old.get(id);
    if (!o) result.gained.push(change("gained", c.key, c.userId, c.line.scope, undefined, c.line));
    else if (!sameLine(o.line, c.line)) {
      // A pending invitation that became a member is a gain of membership, not a permission change.
      const kind: Kind = o.line.status !== "member" && c.line.status === "member" ? "gained" : "changed";
      result.changed.push(change(kind, c.key, c.userId ?? o.userId, c.line.scope, o.line, c.line));
    }
  }
  for (const [id, o] of old) if (!cur.has(id)) result.lost.push(change("lost", o.key, o.userId, o.line.scope, o.line, undefined));
  const order = (a: ReviewChange, b: ReviewChange) => compareKeys(a.key, b.key) || compareText(a.scope, b.scope);
  result.gained.sort(order);
  result.lost.sort(order);
  result.changed.sort(order);
  return result;
}
