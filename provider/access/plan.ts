/**
 * The one planner of access: from the grants a resource declares, the grants live at the scope and
 * the resource's settings, what to add, change and remove, and why each is or is not done. Pure: no
 * request, no clock, no message; the resources read live, ask the day and the key's user, and write
 * (orgPeople.ts, databaseGrants.ts). Its steps, in order:
 *
 * 1. the window: each declared grant on the service's day (current, ending soon, expired, not yet);
 * 2. the changes: declared and absent is an add, declared and different a change;
 * 3. removals: authoritative mode removes the undeclared, except the protected and what another
 *    resource of the run declares (handed over); an expired grant goes in either mode;
 * 4. anti-lockout (`lockoutRefusal`): one rule for organizations and databases;
 * 5. the drift gate (gate.ts): of the undeclared an additive roster leaves in place, who waits for a decision.
 */
import {
  ADMIN_NAME,
  ADMIN_PERMISSION,
  administers,
  claimKeysOf,
  takesAdmin,
  standingOn,
  type ClaimKey,
  type Grant,
  type Scope,
  type Subject,
} from "../../contract/grants";
import { personText } from "../../contract/people";
import type { ReviewAdminClient } from "../client";
import { sameIdentifiers, sameSet } from "../normalize";

/** A grant as it is live; at an organization, an invitation is "invited" (or "expired") until accepted. */
export interface LiveGrant extends Grant {
  status?: "active" | "invited" | "expired";
}

/** What the plan is judged with besides the grants. */
export interface PlanSettings {
  scope: Scope;
  mode: "authoritative" | "additive";
  /** Keys never removed in authoritative mode (protectedEmails, protectedUserIds). */
  protectedKeys?: readonly string[];
  /** The resource of this run declaring any of these claim keys, if one does (handover.ts's holderOf). */
  declaredElsewhere?: (keys: readonly ClaimKey[]) => string | undefined;
  /** The service's day (YYYY-MM-DD); undefined when no grant has a date (every grant is current). */
  day?: string;
  /** An end within this many days of `day` is "expiring soon". */
  soonDays?: number;
}

/** What to do, key by key (a key: an email at an organization, a user id as text at a database). */
export interface AccessPlan {
  /** The declared grants in their window on the day: what the resource declares today. */
  current: Record<string, Grant>;
  /** Every end date declared. */
  ends: Record<string, string>;
  /** Declared grants ending within soonDays. */
  soon: Record<string, string>;
  /** Declared grants past their end (removed, even in additive mode). */
  expired: Record<string, string>;
  add: string[];
  change: string[];
  remove: string[];
  /** Undeclared grants left in place because another resource of the run declares them: key, that resource. */
  handedOver: [string, string][];
  /** Keys whose removal or change takes what anti-lockout guards (`losesGuarded`). */
  losing: string[];
}

/**
 * What a roster's writes are given (the gateways' `writeOrganizationRoster`, `writeDatabaseRoster`;
 * the roster engine, resources/support/grantRoster.ts, makes it). `I`: the inputs, `R`: the scope as listed.
 */
export interface RosterWrite<I, R> {
  client: ReviewAdminClient;
  action: string;
  scope: Scope;
  plan: AccessPlan;
  /** The inputs with only the entries in their window today. */
  now: I;
  /** The scope as listed before the writes. */
  listed: R;
  /** Call after each write (progress lines from 100 writes on). */
  wrote: () => void;
  /**
   * Runs writes that take what anti-lockout guards (ORG_ADMIN or membership, DB_ADMIN) from the
   * plan's `losing` entries: judged in turn with the scope's other admin removals, against a fresh
   * list (resources/support/lockout.ts); straight through when allowAdminRemoval is set.
   */
  guarded: (write: () => Promise<void>) => Promise<void>;
}

/** The declared grants (or anything with a window) on `day` (undefined: all current), with their end dates. */
export function onDay<G extends { window?: Grant["window"] }>(
  desired: Readonly<Record<string, G>>,
  day: string | undefined,
  soonDays = 14,
): { current: Record<string, G>; ends: Record<string, string>; soon: Record<string, string>; expired: Record<string, string> } {
  const out = {
    current: {} as Record<string, G>,
    ends: {} as Record<string, string>,
    soon: {} as Record<string, string>,
    expired: {} as Record<string, string>,
  };
  for (const [key, g] of Object.entries(desired)) {
    const end = g.window?.expiresOn;
    if (end) out.ends[key] = end;
    const st = day ? standingOn(g.window, day, soonDays) : "active";
    if (st === "expired") out.expired[key] = end!;
    else if (st !== "notYet") out.current[key] = g;
    if (st === "soon") out.soon[key] = end!;
  }
  return out;
}

/**
 * True when the live grant differs from the declared one in what the declaration manages:
 * its permissions, its identifiers (once a member: an invitation has none), or an expired invitation
 * (re-sent).
 */
export function differs(want: Grant, have: LiveGrant): boolean {
  if (want.permissions && !sameSet(want.permissions, have.permissions ?? [])) return true;
  if (want.identifiers && (have.status ?? "active") === "active" && !sameIdentifiers(want.identifiers, have.identifiers ?? [])) return true;
  return have.status === "expired";
}

/**
 * True when going from `have` to `want` (undefined: removed) takes what anti-lockout guards at the
 * scope: the administering permission (ORG_ADMIN, DB_ADMIN), or, at an organization, an active
 * membership (without it a key's user reaches nothing there).
 */
export function losesGuarded(scope: Scope, have: LiveGrant, want: Grant | undefined): boolean {
  if ((have.status ?? "active") !== "active") return false;
  if (!want) return scope.kind === "organization" || administers(scope.kind, have.permissions);
  return !!want.permissions && takesAdmin(scope.kind, have.permissions, want.permissions);
}

/** Plans the grants of one scope (see the file comment); the refusal, if any, is `lockoutRefusal`'s. */
export function planGrants(
  desired: Readonly<Record<string, Grant>>,
  live: Readonly<Record<string, LiveGrant>>,
  s: PlanSettings,
): AccessPlan {
  const dated = onDay(desired, s.day, s.soonDays);
  const want = dated.current;
  const add = Object.keys(want).filter((k) => !live[k]);
  const change = Object.keys(want).filter((k) => live[k] && differs(want[k]!, live[k]));
  const remove: string[] = [];
  const handedOver: [string, string][] = [];
  if (s.mode === "authoritative") {
    const protectedSet = new Set(s.protectedKeys ?? []);
    for (const k of Object.keys(live)) {
      if (want[k] || protectedSet.has(k)) continue;
      const holder = s.declaredElsewhere?.(claimKeysOf(live[k]!));
      if (holder) handedOver.push([k, holder]);
      else remove.push(k);
    }
  }
  // Expired grants go even in additive mode: past its end a grant is not merely unmanaged.
  for (const k of Object.keys(dated.expired)) if (live[k] && !remove.includes(k)) remove.push(k);
  const losing = [
    ...remove.filter((k) => losesGuarded(s.scope, live[k]!, undefined)),
    ...change.filter((k) => losesGuarded(s.scope, live[k]!, want[k])),
  ];
  return { ...dated, add, change, remove, handedOver, losing };
}

/** The plan of one declared grant (a per-person resource: a roster of one, additive). */
export interface OneGrantPlan {
  /** Where the grant stands on the day; "expired" past its end. */
  standing: "active" | "soon" | "expired" | "notYet";
  /** Something is to be written: the grant is absent, or differs from what is held. */
  write: boolean;
  /** What is held is to go: the grant has expired. */
  remove: boolean;
  /** The write or the removal takes what anti-lockout guards (`losesGuarded`). */
  losing: boolean;
}

/**
 * `planGrants` for a map of one, in additive mode (a per-person resource never removes anyone it
 * does not declare): `have` is what is held of the grant, undefined when nothing is.
 */
export function planOne(want: Grant, have: LiveGrant | undefined, s: Omit<PlanSettings, "mode">): OneGrantPlan {
  const p = planGrants({ one: want }, have ? { one: have } : {}, { ...s, mode: "additive" });
  const standing = p.expired.one ? "expired" : p.soon.one ? "soon" : p.current.one ? "active" : "notYet";
  return { standing, write: p.add.length + p.change.length > 0, remove: p.remove.length > 0, losing: p.losing.length > 0 };
}

/** "ada@x.example (user 1001)", "user 1004" when no email is known (contract/people.ts `personText`). */
export function subjectText(s: Subject): string {
  return personText({ email: s.email, userId: s.userId });
}

/** How a refusal or a note names a person: subjectText, or better where the caller knows their name. */
export type NameOf = (s: Subject) => string;

const scopeText = (scope: Scope) => `${scope.kind} ${scope.id}`;

/** Why anti-lockout keeps a grant: it holds the scope's last administrators, or it is the key's own user's. */
export type LockoutCause = { kind: "lastAdmins"; lost: LiveGrant[] } | { kind: "own"; who: Subject };

/**
 * Who else may administer a database besides its DB_ADMINs: the org admins of its owning
 * organization, when the database keeps orgAdminAccess on (the service then lets them manage its
 * users) and that organization has any (`orgAdmins`, its members holding ORG_ADMIN).
 */
export interface DatabaseBackstop {
  organizationId: number;
  orgAdminAccess: boolean;
  orgAdmins: number;
}

/** True when someone besides its DB_ADMINs administers the database (see DatabaseBackstop). */
const backsUp = (b: DatabaseBackstop | undefined): b is DatabaseBackstop => !!b && b.orgAdminAccess && b.orgAdmins > 0;

/**
 * Anti-lockout, the one rule for organizations and databases: a change may not take from the API
 * key's own user (`me`) what lets the program manage the scope (see `losesGuarded`), nor take from
 * a scope its last administrators (ORG_ADMIN, DB_ADMIN) when no one else can administer it: an
 * organization's last org admin always counts; a database's last DB_ADMIN only when it has no
 * `backstop` administering it (orgAdminAccess off, no org admin left, or not known). `everyone`: every live grant at the scope;
 * `losing`: the grants a change takes that from. Undefined when the change may go ahead.
 */
export function lockoutCause(
  scope: Scope,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  me: Subject | undefined,
  backstop?: DatabaseBackstop,
): LockoutCause | undefined {
  if (losing.length === 0) return undefined;
  const mine = me && losing.find((l) => sameSubject(l.subject, me));
  if (mine) return { kind: "own", who: { email: mine.subject.email ?? me.email, userId: mine.subject.userId ?? me.userId } };
  const lost = lastAdminsLost(scope, everyone, losing);
  if (lost.length > 0 && !(scope.kind === "database" && backsUp(backstop))) return { kind: "lastAdmins", lost };
  return undefined;
}

// Not sameClaim: the key's user (`me`) is matched by email as the service spells it, at a
// database too, where claim keys know only the user id.
const sameSubject = (a: Subject, b: Subject) => (a.userId != null && a.userId === b.userId) || (!!a.email && a.email === b.email);

/** The scope's administrators `losing` takes, when they are all it has (else none). */
export function lastAdminsLost(scope: Scope, everyone: readonly LiveGrant[], losing: readonly LiveGrant[]): LiveGrant[] {
  const admins = everyone.filter((g) => (g.status ?? "active") === "active" && administers(scope.kind, g.permissions));
  const lost = admins.filter((a) => losing.some((l) => sameSubject(a.subject, l.subject)));
  return lost.length > 0 && lost.length === admins.length ? lost : [];
}

/**
 * Anti-lockout over removals at one scope taken one after another (an ethical wall's breaches):
 * each judged with the removals allowed before it already done. The cause per removal, in order;
 * undefined where it may go.
 */
export function lockoutEach(
  scope: Scope,
  everyone: readonly LiveGrant[],
  removals: readonly LiveGrant[],
  me: Subject | undefined,
  backstop?: DatabaseBackstop,
): (LockoutCause | undefined)[] {
  let left = [...everyone];
  return removals.map((r) => {
    const cause = losesGuarded(scope, r, undefined) ? lockoutCause(scope, left, [r], me, backstop) : undefined;
    if (!cause) left = left.filter((g) => !(g.subject.userId != null && g.subject.userId === r.subject.userId));
    return cause;
  });
}

/**
 * What the run says when a database's last DB_ADMINs go because its backstop administers it:
 * "user 1004 loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's 2 org admins
 * still administer it (orgAdminAccess is on)". Undefined when that is not the case.
 */
export function lastAdminsNote(
  scope: Scope,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  backstop: DatabaseBackstop | undefined,
  what: string,
  nameOf: NameOf = subjectText,
): string | undefined {
  if (scope.kind !== "database" || !backsUp(backstop)) return undefined;
  const lost = lastAdminsLost(scope, everyone, losing);
  if (lost.length === 0) return undefined;
  const names = lost.map((g) => nameOf(g.subject)).join(", ");
  const last = lost.length === 1 ? "loses DB_ADMIN of database %, its last DB_ADMIN" : "lose DB_ADMIN of database %, its last DB_ADMINs";
  const admins =
    backstop.orgAdmins === 1
      ? `organization ${backstop.organizationId}'s org admin still administers it`
      : `organization ${backstop.organizationId}'s ${backstop.orgAdmins} org admins still administer it`;
  return `${what}: ${names} ${last.replace("%", String(scope.id))}; ${admins} (orgAdminAccess is on)`;
}

/** `lockoutCause` as a refusal of `what` (one wording for every resource), or undefined. */
export function lockoutRefusal(
  scope: Scope,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  me: Subject | undefined,
  what: string,
  backstop?: DatabaseBackstop,
  nameOf: NameOf = subjectText,
): string | undefined {
  const cause = lockoutCause(scope, everyone, losing, me, backstop);
  if (!cause) return undefined;
  const where = scopeText(scope);
  if (cause.kind === "own")
    return `${what}: refused: it would take ${ADMIN_PERMISSION[scope.kind]} from ${nameOf(cause.who)}, the user of the API key in use, locking this program out of ${where}. Set allowAdminRemoval: true to do it anyway.`;
  const name = ADMIN_NAME[scope.kind];
  const names = cause.lost.map((g) => nameOf(g.subject)).join(", ");
  const last = cause.lost.length === 1 ? `is the last ${name}` : `are the last ${name}s`;
  // At a database, say why no one else can administer it (orgAdminAccess off, or no org admin left).
  const alone =
    scope.kind !== "database" || !backstop
      ? ""
      : !backstop.orgAdminAccess
        ? `, which keeps orgAdminAccess off (no org admin administers it)`
        : `, and organization ${backstop.organizationId} has no org admin to administer it`;
  return `${what}: refused: ${names} ${last} of ${where}${alone}; removing them would leave it with no ${name}. Keep one, or set allowAdminRemoval: true to do it anyway.`;
}
