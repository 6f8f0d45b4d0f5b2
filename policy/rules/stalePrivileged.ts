/**
 * Policy stale-privileged-access (docs/policy.md, issue 27): a privileged person with no activity
 * in the window of a getStalePrivilegedPeople answer the stack exports as an output is flagged,
 * on each resource of the stack that grants them the privilege, or on the stack when none does.
 * The pack cannot read the activity log itself (it sees the stack's resources only); the
 * program's data source reads it, in a preview too, and the root stack's outputs carry it here.
 */
import type { OrganizationPermission } from "../../contract/types";
import { grantOfDeclaration, isNotKnown, isNumber, isObject, isString, label, type Declaration, type Declared } from "../declarations";
import { DB_ADMIN, privilegesOf, sameClaim } from "../../contract/grants";
import { emailsByUserId, type Finding } from "./shared";

/** The root stack resource's type: its properties are the stack outputs. */
export const STACK_TYPE = "pulumi:pulumi:Stack";

/** A stale person as getStalePrivilegedPeople describes them (provider/data/stalePrivileged.ts). */
export interface StalePerson {
  userId: number;
  email: string;
  organizationPermissions: OrganizationPermission[];
  databaseAdminOf: number[];
  /** The person's own limit in days (staleDays, or a privilege's); absent: the answer's staleDays. */
  limitDays?: number;
}

/** One getStalePrivilegedPeople answer found among the stack outputs, and the output's name. */
export interface StaleAnswer {
  output: string;
  organizationId: number;
  asOf: string;
  staleDays: number;
  stale: StalePerson[];
}

/** The stale-privileged-access rule's config. */
export interface StaleAccessConfig {
  /** Emails or user ids (as text) never flagged: break-glass and service accounts. */
  exempt?: string[];
  /** User id -> email, for grants named by user id. */
  userEmails?: Record<string, string>;
}

function personOf(v: unknown): StalePerson | undefined {
  if (!isObject(v) || !isNumber(v.userId) || !isString(v.email)) return undefined;
  const perms = Array.isArray(v.organizationPermissions) ? v.organizationPermissions.filter(isString) : [];
  const dbs = Array.isArray(v.databaseAdminOf) ? v.databaseAdminOf.filter(isNumber) : [];
  return {
    userId: v.userId,
    email: v.email.toLowerCase(),
    organizationPermissions: perms as OrganizationPermission[],
    databaseAdminOf: dbs,
    ...(isNumber(v.limitDays) ? { limitDays: v.limitDays } : {}),
  };
}

/** An answer by its shape (the fields getStalePrivilegedPeople always returns), or undefined. */
function answerOf(output: string, v: unknown): StaleAnswer | undefined {
  if (!isObject(v) || !isNumber(v.organizationId) || !isString(v.asOf) || !isString(v.windowBegin) || !isNumber(v.staleDays))
    return undefined;
  if (!Array.isArray(v.stale) || !isNumber(v.privileged)) return undefined;
  const stale = v.stale.map(personOf).filter((p): p is StalePerson => p !== undefined);
  return { output, organizationId: v.organizationId, asOf: v.asOf, staleDays: v.staleDays, stale };
}

/**
 * The getStalePrivilegedPeople answers among the stack outputs (plain, unknowns as NOT_KNOWN): an
 * output holding one, or an array or object of them one level down (one per organization).
 */
export function staleAnswersOf(outputs: Record<string, unknown>): StaleAnswer[] {
  const found: StaleAnswer[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    if (isNotKnown(value)) continue;
    const one = answerOf(name, value);
    if (one) {
      found.push(one);
      continue;
    }
    const inner = Array.isArray(value)
      ? value.map((v, i) => [`${name}[${i}]`, v] as const)
      : isObject(value)
        ? Object.entries(value).map(([k, v]) => [`${name}.${k}`, v] as const)
        : [];
    for (const [path, v] of inner) {
      const a = answerOf(path, v);
      if (a) found.push(a);
    }
  }
  return found;
}

/**
 * The privileges of `p` this declaration grants (known permissions only): a declaration of the
 * same person (a claim key in common, contract/grants.ts sameClaim) in the answer's organization,
 * or in a database the answer says they administer.
 */
function granted(d: Declaration, p: StalePerson, answer: StaleAnswer, emails: Map<number, string>): string[] {
  const g = grantOfDeclaration(d);
  if (d.invitation || g === undefined || d.permissions === undefined || isNotKnown(d.permissions)) return [];
  // The known permissions count while others are not known yet (the grant holds only a complete list).
  const privs = privilegesOf({ scope: g.scope, permissions: d.permissions.known });
  // A declaration naming them by user id reaches them by email too, through userEmails and outputs.
  const email = g.subject.email ?? (g.subject.userId != null ? emails.get(g.subject.userId) : undefined);
  const same = sameClaim(
    { scope: g.scope, subject: { ...g.subject, email } },
    { scope: g.scope, subject: { email: p.email, userId: p.userId } },
  );
  if (g.scope.kind === "organization")
    return g.scope.id === answer.organizationId && same ? p.organizationPermissions.filter((x) => privs.includes(x)) : [];
  return same && p.databaseAdminOf.includes(g.scope.id) && privs.includes(DB_ADMIN) ? [`${DB_ADMIN} on database ${g.scope.id}`] : [];
}

/** Every privilege `p` holds, as the messages name them. */
function privileges(p: StalePerson): string[] {
  return [...p.organizationPermissions, ...p.databaseAdminOf.map((db) => `${DB_ADMIN} on database ${db}`)];
}

/**
 * Rule: each stale person of each answer, unless exempt: one finding per resource that grants
 * them a privilege they hold, and one for the stack naming the privileges no resource of it
 * grants (held outside the program's code).
 */
export function staleAccessFindings(declared: Declared, answers: StaleAnswer[], cfg: StaleAccessConfig = {}): Finding[] {
  const exempt = new Set((cfg.exempt ?? []).map((x) => String(x).trim().toLowerCase()));
  const emails = emailsByUserId(declared, cfg.userEmails);
  const findings: Finding[] = [];
  for (const answer of answers) {
    for (const p of answer.stale) {
      if (exempt.has(p.email) || exempt.has(String(p.userId))) continue;
      const days = p.limitDays ?? answer.staleDays;
      const window = `no activity in organization ${answer.organizationId}'s log in the ${days === 1 ? "1 day" : `${days} days`} to ${answer.asOf.slice(0, 10)} (stack output ${answer.output})`;
      const who = `${p.email} (user ${p.userId})`;
      const covered = new Set<string>();
      for (const d of declared.declarations) {
        const privs = granted(d, p, answer, emails);
        if (privs.length === 0) continue;
        privs.forEach((x) => covered.add(x));
        findings.push({
          urn: d.res.urn,
          message:
            `${label(d.res)} grants ${who} ${privs.join(", ")}, and ${who} has had ${window}. ` +
            `Fix: take the privilege away if it is no longer needed, or list ${p.email} in the policy's exempt config if it must stay (a break-glass account).`,
        });
      }
      const outside = privileges(p).filter((x) => !covered.has(x));
      if (outside.length === 0) continue;
      findings.push({
        message:
          `${who} holds ${outside.join(", ")} outside this stack's code, and has had ${window}. ` +
          `Fix: take the privilege away (in the web app, or by declaring the person in the program), or list ${p.email} in the policy's exempt config.`,
      });
    }
  }
  return findings;
}
