/**
 * The review packet's code flags: a person's access set against what the stack's code declares
 * (policy/declarations.ts's plain model of the stack's resources): which resources declare each
 * line of access and the end date they set, the ethical walls covering the person, and the flags
 * not-in-code, expiring-soon, walled and wall-breach.
 */
import {
  grantOfDeclaration,
  isNotKnown,
  isString,
  label,
  type Declaration,
  type Declared,
  type Wall,
  wallRuleOf,
} from "../../policy/declarations";
import { admittedBy, dayOf, exceptionText, sameClaim, wallCloses } from "../../contract/grants";
import { grantOfLine, type AccessLine, type Flag, type PersonInCode, type ReviewPerson } from "./format";

const DAY_MS = 86_400_000;

/** True when the wall walls the person off: by the user ids its check found, or by their email (`wallCloses`). */
function covers(wall: Wall, p: ReviewPerson): boolean {
  if (p.userId !== null && wall.walledUsers[String(p.userId)] !== undefined) return true;
  const rule = wallRuleOf(wall);
  if (!rule || !p.key.includes("@")) return false;
  return wallCloses(rule, p.key);
}

/**
 * Whether a declaration of the stack declares this line of the person's access in organization
 * `orgId`: their grants share a claim key (contract/grants.ts sameClaim), as the provider's
 * handover matches a person. Identifiers are not access.
 */
function declares(d: Declaration, p: ReviewPerson, l: AccessLine, orgId: number): boolean {
  const g = d.field === "userIdentifiers" ? undefined : grantOfDeclaration(d);
  return g !== undefined && sameClaim(g, grantOfLine(l, p, orgId));
}

/**
 * The line's permissions that the declarations do not declare; undefined when one of them holds
 * permissions the state does not show (a secret exported without --show-secrets, a value not
 * known yet), which cannot be judged. A declaration that does not manage permissions (an
 * OrgMember without them) declares none.
 */
function beyondCode(held: readonly string[], by: Declaration[]): string[] | undefined {
  const declared = new Set<string>();
  for (const d of by) {
    if (d.permissions === undefined) continue;
    if (isNotKnown(d.permissions) || d.permissions.partial) return undefined;
    d.permissions.known.forEach((x) => declared.add(x));
  }
  return held.filter((x) => !declared.has(x));
}

/**
 * The judge of one organization's people against the stack: per person, the inCode record and
 * the code flags. `asOf` and `expiringDays` set the last day that counts as expiring soon.
 */
export function codeOf(declared: Declared, orgId: number, asOf: number, expiringDays: number) {
  const lastDay = new Date(asOf + expiringDays * DAY_MS).toISOString().slice(0, 10);
  const walls = declared.walls ?? [];
  const asOfDay = dayOf(asOf);
  return (p: ReviewPerson): { inCode: PersonInCode; flags: Flag[] } => {
    const flags = new Set<Flag>();
    const lines = p.lines
      .filter((l) => l.status !== "invitation-expired")
      .map((l) => {
        const by = declared.declarations.filter((d) => declares(d, p, l, orgId));
        const ends = by
          .map((d) => d.expiresOn)
          .filter(isString)
          .sort();
        // Judged per permission: a declared person made ORG_ADMIN in the web app holds access the code does not declare.
        const notInCode = beyondCode(l.permissions, by);
        if (by.length === 0 || notInCode?.length) flags.add("not-in-code");
        if (ends.length > 0 && ends[0] <= lastDay) flags.add("expiring-soon");
        return {
          scope: l.scope,
          declaredBy: [...new Set(by.map((d) => label(d.res)))].sort(),
          ...(notInCode?.length ? { notInCode } : {}),
          ...(ends.length ? { endsOn: ends[0] } : {}),
        };
      });
    const covering = walls.filter((w) => covers(w, p));
    if (covering.length > 0) flags.add("walled");
    // An exception in force on the review's day admits the person: walled, but no breach; said apart.
    const admitted = (w: Wall) =>
      w.exceptions === undefined || isNotKnown(w.exceptions) ? undefined : admittedBy(w.exceptions, p.key, asOfDay);
    const closing = covering.filter((w) => !admitted(w));
    const closed = new Set(closing.flatMap((w) => (isNotKnown(w.databaseIds) ? [] : w.databaseIds)).map((id) => `database ${id}`));
    if (p.lines.some((l) => l.status === "granted" && l.permissions.length > 0 && closed.has(l.scope))) flags.add("wall-breach");
    const wallText = covering
      .map((w) => {
        const x = admitted(w);
        return `${label(w.res)}${isString(w.reason) ? ` (${w.reason})` : ""}${x ? `; exception in force: ${exceptionText(x)}` : ""}`;
      })
      .sort();
    return { inCode: { lines, walls: wallText }, flags: [...flags] };
  };
}
