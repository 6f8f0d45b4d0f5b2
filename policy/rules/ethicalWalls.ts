/**
 * Policy ethical-walls (docs/policy.md): no resource of the stack grants a walled person access
 * to a walled database (issue 26): the people of a wall of people, or anyone outside a matter
 * team, unless an approved exception in force admits them (issue 37).
 */
import { isNotKnown, isNumber, isString, label, wallRuleOf, type Declared, type Wall } from "../declarations";
import {
  dayOf,
  exceptionStanding,
  exceptionText,
  ORG_ADMIN,
  wallCloses,
  wallCovers,
  type WallException,
  type WallRule,
} from "../../contract/grants";
import { emailsByUserId, hasPerm, type Finding } from "./shared";

/** The ethical-walls rule's config. */
export interface EthicalWallsConfig {
  /** User id -> email, for grants named by user id that no wall or member resource maps. */
  userEmails?: Record<string, string>;
}

/** How the wall names the person in a message: the email, with the covering entry of a wall of people. */
function walledText(rule: WallRule, email: string): string {
  const entry = rule.people?.find((p) => wallCovers(p, email));
  return entry === undefined || entry === email ? email : `${email} (by ${entry})`;
}

/**
 * The wall's exceptions in force: as its check found them by the service's clock; when the check
 * could not read the service, judged on this machine's day (the pack has no service clock).
 */
function exceptionsInForce(wall: Wall): WallException[] {
  if (wall.exceptionsInForce) return wall.exceptionsInForce;
  if (wall.exceptions === undefined || isNotKnown(wall.exceptions)) return [];
  const day = dayOf(Date.now());
  return wall.exceptions.filter((x) => exceptionStanding(x, day) === "inForce");
}

/** What a finding about `email` (whom no exception admits) adds: their exceptions not in force, and the wall's in force, listed apart. */
function exceptionsSaid(wall: Wall, inForce: WallException[], email: string): string {
  const all = wall.exceptions === undefined || isNotKnown(wall.exceptions) ? [] : wall.exceptions;
  const ended = all.filter((x) => x.person === email);
  const endedText = ended.length ? ` Their exception is not in force: ${ended.map(exceptionText).join("; ")}.` : "";
  const inForceText = inForce.length ? ` Exceptions in force on this wall: ${inForce.map(exceptionText).join("; ")}.` : "";
  return endedText + inForceText;
}

/**
 * Rule: for each EthicalWall, no declaration grants database permissions on one of its databases
 * to a person it walls off (`wallCloses`: the people of a wall of people, everyone outside a
 * matter team and its alsoAllowed), unless an exception in force admits them. Rosters and
 * DatabaseUserPermissions name users by id: an id is matched through the wall's `walledUsers`
 * (what its check found behind the emails and patterns, from the API), the emails member
 * resources pair with ids, and the config's userEmails; a matter-team wall refuses an id none of
 * them names, since only the team may reach it. Each wall is judged alone, so two walls breached
 * by one roster give one finding each.
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
  const rule = wallRuleOf(wall);
  // A wall whose databases or people are not known yet is judged at up.
  if (isNotKnown(wall.databaseIds) || rule === undefined) return [];
  const databases = new Set(wall.databaseIds);
  const reason = isString(wall.reason) ? ` (${wall.reason})` : "";
  const inForce = exceptionsInForce(wall);
  const findings: Finding[] = [];
  for (const d of declared.declarations) {
    if (d.scope !== "database" || !isNumber(d.scopeId) || !databases.has(d.scopeId)) continue;
    // A grant whose permissions are known to be none gives no access.
    if (d.permissions !== undefined && !isNotKnown(d.permissions) && d.permissions.known.length === 0 && !d.permissions.partial) continue;
    const perms = d.permissions === undefined || isNotKnown(d.permissions) ? "permissions" : d.permissions.known.join("+") || "permissions";
    const email = isString(d.email) ? d.email : isNumber(d.userId) ? emails.get(d.userId) : undefined;
    if (email === undefined) {
      if (rule.team && isNumber(d.userId))
        findings.push({
          urn: d.res.urn,
          message:
            `${label(wall.res)} admits only its matter team to database ${d.scopeId}${reason}, but ${label(d.res)} grants user ${d.userId} ${perms} on it, whom the pack cannot name. ` +
            `Fix: declare user ${d.userId}'s email (an OrgMember of the program, or the ethical-walls config's userEmails), or take them out of ${label(d.res)}.`,
        });
      continue;
    }
    if (!wallCloses(rule, email) || inForce.some((x) => x.person === email)) continue;
    const who = isNumber(d.userId) ? `user ${d.userId} (${email})` : email;
    const closed = rule.team
      ? `admits only its matter team to database ${d.scopeId}${reason}, but ${label(d.res)} grants ${who}, who is not on the team, ${perms} on it. ` +
        `Fix: take ${who} out of ${label(d.res)}, add them to the team or alsoAllowed of ${label(wall.res)}, or record an approved exception.`
      : `walls ${walledText(rule, email)} off database ${d.scopeId}${reason}, but ${label(d.res)} grants ${who} ${perms} on it. ` +
        `Fix: take ${who} out of ${label(d.res)}, or change ${label(wall.res)} if the wall is wrong.`;
    findings.push({ urn: d.res.urn, message: `${label(wall.res)} ${closed}${exceptionsSaid(wall, inForce, email)}` });
  }
  findings.push(...orgAdminFindings(wall, rule, reason, inForce, declared, emails));
  return findings;
}

/**
 * ORG_ADMIN declared for a walled person in an organization whose org admins reach a walled
 * database (orgAdminAccess on, which the API cannot turn off): a breach the wall could never fix.
 */
function orgAdminFindings(
  wall: Wall,
  rule: WallRule,
  reason: string,
  inForce: WallException[],
  declared: Declared,
  emails: Map<number, string>,
): Finding[] {
  const findings: Finding[] = [];
  const walledDbs = new Set(isNotKnown(wall.databaseIds) ? [] : wall.databaseIds);
  for (const [db, orgId] of Object.entries(wall.orgAdminReach)) {
    if (!walledDbs.has(Number(db))) continue;
    for (const d of declared.declarations) {
      if (d.scope !== "organization" || d.scopeId !== orgId || d.invitation || !hasPerm(d.permissions, ORG_ADMIN)) continue;
      const email = isString(d.email) ? d.email : isNumber(d.userId) ? emails.get(d.userId) : undefined;
      if (email === undefined || !wallCloses(rule, email) || inForce.some((x) => x.person === email)) continue;
      findings.push({
        urn: d.res.urn,
        message:
          `${label(wall.res)} walls ${walledText(rule, email)} off database ${db}${reason}, but ${label(d.res)} makes ${email} an org admin of organization ${orgId}, ` +
          `and database ${db} keeps orgAdminAccess on: org admins reach it, a breach the API cannot fix. ` +
          `Fix: do not grant ORG_ADMIN to ${email}, or turn orgAdminAccess off for database ${db} in the web application.` +
          exceptionsSaid(wall, inForce, email),
      });
    }
  }
  return findings;
}
