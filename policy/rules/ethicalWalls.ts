/**
 * Policy ethical-walls (docs/policy.md): no resource of the stack grants a walled person access
 * to a walled database (issue 26).
 */
import { isNotKnown, isNumber, isString, label, type Declared, type Wall } from "../declarations";
import { ORG_ADMIN, wallCovers } from "../../contract/grants";
import { emailsByUserId, hasPerm, type Finding } from "./shared";

/** The ethical-walls rule's config. */
export interface EthicalWallsConfig {
  /** User id -> email, for grants named by user id that no wall or member resource maps. */
  userEmails?: Record<string, string>;
}

/** The wall's entry (an email or a `*@domain` pattern) that covers `email`. */
function coveringEntry(people: readonly string[], email: string): string | undefined {
  return people.find((p) => wallCovers(p, email));
}

/**
 * Rule: for each EthicalWall, no declaration grants database permissions on one of its databases
 * to a person it walls off. Rosters and DatabaseUserPermissions name users by id: an id is matched
 * through the wall's `walledUsers` (what its check found behind the emails and patterns, from the
 * API), the emails member resources pair with ids, and the config's userEmails. Each wall is
 * judged alone, so two walls breached by one roster give one finding each.
 */
export function ethicalWallFindings(declared: Declared, cfg: EthicalWallsConfig = {}): Finding[] {
  const walls = declared.walls ?? [];
  const emails = emailsByUserId(declared, cfg.userEmails);
  for (const w of walls) for (const [id, email] of Object.entries(w.walledUsers)) if (/^\d+$/.test(id)) emails.set(Number(id), email);
  const findings: Finding[] = [];
  for (const wall of walls) findings.push(...wallFindings(wall, declared, emails));
  return findings;
}

function wallFindings(wall: Wall, declared: Declared, emails: Map<number, string>): Finding[] {
  // A wall whose databases or people are not known yet is judged at up.
  if (isNotKnown(wall.databaseIds) || isNotKnown(wall.people)) return [];
  const databases = new Set(wall.databaseIds);
  const people = wall.people;
  const reason = isString(wall.reason) ? ` (${wall.reason})` : "";
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== "database" || !isNumber(d.scopeId) || !databases.has(d.scopeId)) continue;
    // A grant whose permissions are known to be none gives no access.
    if (d.permissions !== undefined && !isNotKnown(d.permissions) && d.permissions.known.length === 0 && !d.permissions.partial) continue;
    const email = isString(d.email) ? d.email : isNumber(d.userId) ? emails.get(d.userId) : undefined;
    const entry = email === undefined ? undefined : coveringEntry(people, email);
    if (entry === undefined || email === undefined) continue;
    const who = isNumber(d.userId) ? `user ${d.userId} (${email})` : email;
    const perms = d.permissions === undefined || isNotKnown(d.permissions) ? "permissions" : d.permissions.known.join("+") || "permissions";
    const by = entry === email ? email : `${email} (by ${entry})`;
    findings.push({
      urn: d.res.urn,
      message:
        `${label(wall.res)} walls ${by} off database ${d.scopeId}${reason}, but ${label(d.res)} grants ${who} ${perms} on it. ` +
        `Fix: take ${who} out of ${label(d.res)}, or change ${label(wall.res)} if the wall is wrong.`,
    });
  }
  findings.push(...orgAdminFindings(wall, people, reason, declared, emails));
  return findings;
}

/**
 * ORG_ADMIN declared for a walled person in an organization whose org admins reach a walled
 * database (orgAdminAccess on, which the API cannot turn off): a breach the wall could never fix.
 */
function orgAdminFindings(wall: Wall, people: string[], reason: string, declared: Declared, emails: Map<number, string>): Finding[] {
  const findings: Finding[] = [];
  const walledDbs = new Set(isNotKnown(wall.databaseIds) ? [] : wall.databaseIds);
  for (const [db, orgId] of Object.entries(wall.orgAdminReach)) {
    if (!walledDbs.has(Number(db))) continue;
    for (const d of declared.declarations) {
      if (d.scope !== "organization" || d.scopeId !== orgId || d.invitation || !hasPerm(d.permissions, ORG_ADMIN)) continue;
      const email = isString(d.email) ? d.email : isNumber(d.userId) ? emails.get(d.userId) : undefined;
      const entry = email === undefined ? undefined : coveringEntry(people, email);
      if (entry === undefined || email === undefined) continue;
      findings.push({
        urn: d.res.urn,
        message:
          `${label(wall.res)} walls ${entry === email ? email : `${email} (by ${entry})`} off database ${db}${reason}, but ${label(d.res)} makes ${email} an org admin of organization ${orgId}, ` +
          `and database ${db} keeps orgAdminAccess on: org admins reach it, a breach the API cannot fix. ` +
          `Fix: do not grant ORG_ADMIN to ${email}, or turn orgAdminAccess off for database ${db} in the web application.`,
      });
    }
  }
  return findings;
}
