/**
 * The one severity order of the review (issue 55): how risky a line of access is, and so a person
 * (their riskiest line). review.md, review.html and the CLI's summary all sort and explain by it.
 * Pure, over plain facts: render.ts turns a packet's person and line into LineFacts.
 *
 * A privilege alone is not a reason for attention: a declared, unchanged, in-code privilege held
 * by someone active inside the firm is the expected state. A privilege raises the rank of what
 * else is wrong with the line (new, external, stale, not in the code).
 */

/** The severities, riskiest first. */
export const SEVERITY = [
  "external-escalated-privileged",
  "escalated-privileged",
  "wall-breach",
  "privileged-not-in-code",
  "external-privileged",
  "stale-privileged",
  "escalated",
  "external",
  "not-in-code",
  "stale",
  "expiring-soon",
  "suspended",
  "not-a-member",
  "no-access",
  "walled",
] as const;
/** One severity of SEVERITY. */
export type Severity = (typeof SEVERITY)[number];

/** Each severity in words, for the summaries and the legend. */
export const SEVERITY_WORDS: Record<Severity, string> = {
  "external-escalated-privileged": "a new or raised administrative permission for an address outside the firm",
  "escalated-privileged": "a new or raised administrative permission since the last review",
  "wall-breach": "holds access their ethical wall closes",
  "privileged-not-in-code": "an administrative permission the code does not declare",
  "external-privileged": "an administrative permission held by an address outside the firm",
  "stale-privileged": "an administrative permission with no activity within its stale limit",
  escalated: "new access or permissions since the last review",
  external: "access held by an address outside the firm",
  "not-in-code": "access the code does not declare",
  stale: "no activity within their stale limit",
  "expiring-soon": "access the code ends soon",
  suspended: "a suspended account's database permissions",
  "not-a-member": "database permissions without membership of the organization",
  "no-access": "a member or invitee with no access",
  walled: "behind an ethical wall",
};

/** What the severity of one line depends on: the line's own facts and its person's. */
export interface LineFacts {
  /** The line holds a privilege (an organization permission, DB_ADMIN; not an expired invitation's). */
  privileged: boolean;
  /** The line is new since the last review, or holds permissions it did not hold then. */
  escalated: boolean;
  /** Of the person: their address is outside the firm's domains. */
  external: boolean;
  /** Of the person: no activity within their stale limit (and they existed for it). */
  stale: boolean;
  /** With a stack: no resource declares the line, or it holds permissions the code does not declare. */
  notInCode: boolean;
  /** With a stack: the code ends the line soon. */
  expiring: boolean;
  /** A suspended account's database line. */
  suspended: boolean;
  /** Of the person: database lines without membership. */
  notAMember: boolean;
  /** Of the person: no access at all. */
  noAccess: boolean;
  /** Of the person: walled, and breaching the wall. */
  walled: boolean;
  wallBreach: boolean;
}

// Each fact's bit in a line's mask (lineSeverities' cache); a Record, so a fact added to LineFacts must get one.
const BIT: Record<keyof LineFacts, number> = {
  privileged: 1 << 0,
  escalated: 1 << 1,
  external: 1 << 2,
  stale: 1 << 3,
  notInCode: 1 << 4,
  expiring: 1 << 5,
  suspended: 1 << 6,
  notAMember: 1 << 7,
  noAccess: 1 << 8,
  walled: 1 << 9,
  wallBreach: 1 << 10,
};
const FACTS = Object.keys(BIT) as (keyof LineFacts)[];
// Per combination of facts, its severities: a packet of 100,000 people has a few dozen combinations.
const judged = new Map<number, Severity[]>();

/** The severities that apply to a line, riskiest first; empty: the line needs no attention. The list is shared: not to be changed. */
export function lineSeverities(f: LineFacts): Severity[] {
  let mask = 0;
  for (const fact of FACTS) if (f[fact]) mask |= BIT[fact];
  let out = judged.get(mask);
  if (!out) judged.set(mask, (out = judgeLine(f)));
  return out;
}

function judgeLine(f: LineFacts): Severity[] {
  const applies: Record<Severity, boolean> = {
    "external-escalated-privileged": f.privileged && f.escalated && f.external,
    "escalated-privileged": f.privileged && f.escalated && !f.external,
    "wall-breach": f.wallBreach,
    "privileged-not-in-code": f.privileged && f.notInCode,
    "external-privileged": f.privileged && f.external && !f.escalated,
    "stale-privileged": f.privileged && f.stale,
    escalated: f.escalated && !f.privileged,
    external: f.external && !f.privileged,
    "not-in-code": f.notInCode && !f.privileged,
    stale: f.stale && !f.privileged,
    "expiring-soon": f.expiring,
    suspended: f.suspended,
    "not-a-member": f.notAMember,
    "no-access": f.noAccess,
    walled: f.walled && !f.wallBreach,
  };
  return SEVERITY.filter((s) => applies[s]);
}

/** The severities of a person: those of their lines together, riskiest first. */
export function personSeverities(lines: readonly (readonly Severity[])[]): Severity[] {
  const all = new Set(lines.flat());
  return SEVERITY.filter((s) => all.has(s));
}

const RANK = new Map(SEVERITY.map((s, i) => [s, i]));

/**
 * Orders two lists of severities (a line's or a person's), riskiest first: by the riskiest
 * severity, then the next, ...; a longer list before its prefix; an empty one last.
 */
export function compareSeverities(a: readonly Severity[], b: readonly Severity[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === undefined || b[i] === undefined) return a[i] === undefined ? 1 : -1;
    const d = RANK.get(a[i]!)! - RANK.get(b[i]!)!;
    if (d !== 0) return d;
  }
  return 0;
}
