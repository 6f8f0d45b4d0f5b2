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
import { admittedBy, claimKeysOf, dayOf, exceptionText, wallCloses, type ClaimKey } from "../../contract/grants";
import { grantOfLine, type AccessLine, type Flag, type PersonInCode, type ReviewPerson } from "./format";

const DAY_MS = 86_400_000;

/** True when the wall walls the person off: by the user ids its check found, or by their email (`wallCloses`). */
function covers(wall: Wall, p: ReviewPerson): boolean {
  if (p.userId !== null && wall.walledUsers[String(p.userId)] !== undefined) return true;
  const rule = wallRuleOf(wall);
  if (!rule || !p.key.includes("@")) return false;
  return wallCloses(rule, p.key);
}

/** The stack's declarations by the claim keys of their grants, each with its place in the stack's order. */
type ClaimIndex = Map<ClaimKey, { d: Declaration; at: number }[]>;

/**
 * Indexes the stack's declarations by the claim keys of their grants (contract/grants.ts
 * claimKeysOf): a line of access is declared by those sharing a key with it (sameClaim), as the
 * provider's handover matches a person. Identifiers are not access. Built once per organization,
 * so a line costs its few keys instead of a pass over every declaration: at 28,007 people and 202
 * rosters that pass made `review --stack` quadratic, over 12 minutes of CPU (issue 57).
 */
function claimIndex(declared: Declared): ClaimIndex {
  const index: ClaimIndex = new Map();
  declared.declarations.forEach((d, at) => {
    const g = d.field === "userIdentifiers" ? undefined : grantOfDeclaration(d);
    if (!g) return;
    for (const k of new Set(claimKeysOf(g))) {
      const list = index.get(k);
      if (list) list.push({ d, at });
      else index.set(k, [{ d, at }]);
    }
  });
  return index;
}

/** The declarations declaring this line of the person's access in organization `orgId`, in the stack's order. */
function declaring(index: ClaimIndex, p: ReviewPerson, l: AccessLine, orgId: number): Declaration[] {
  const found = new Map<Declaration, number>();
  for (const k of claimKeysOf(grantOfLine(l, p, orgId))) for (const { d, at } of index.get(k) ?? []) found.set(d, at);
  return [...found].sort((a, b) => a[1] - b[1]).map(([d]) => d);
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
  const index = claimIndex(declared);
  return (p: ReviewPerson): { inCode: PersonInCode; flags: Flag[] } => {
    const flags = new Set<Flag>();
    const lines = p.lines
      .filter((l) => l.status !== "invitation-expired")
      .map((l) => {
        const by = declaring(index, p, l, orgId);
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
