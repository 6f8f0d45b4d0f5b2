/**
 * The review's one severity order (issue 55, cli/review/severity.ts) on plain values: the riskiest
 * line first, a privilege alone no reason for attention, people ordered by their riskiest line;
 * flags that belong to a line only on that line; stale only for someone who existed for the window.
 */
import { describe, expect, it } from "vitest";
import type { ReviewOrganization, ReviewPerson } from "../../cli/review/format";
import { isStale } from "../../cli/review/packet";
import { attentionOf, lineFlags, risksOf } from "../../cli/review/render";
import { compareSeverities, lineSeverities, personSeverities, SEVERITY, type LineFacts } from "../../cli/review/severity";

const NONE: LineFacts = {
  privileged: false,
  escalated: false,
  external: false,
  stale: false,
  notInCode: false,
  expiring: false,
  suspended: false,
  notAMember: false,
  noAccess: false,
  walled: false,
  wallBreach: false,
};
const line = (f: Partial<LineFacts>) => lineSeverities({ ...NONE, ...f });
const DAY = 86_400_000;

describe("the severity order", () => {
  it("puts a new or raised privilege of an external address first, and a declared, unchanged, in-code privilege nowhere", () => {
    expect(line({ privileged: true, escalated: true, external: true, stale: true })).toEqual([
      "external-escalated-privileged",
      "stale-privileged",
    ]);
    expect(line({ privileged: true, escalated: true })).toEqual(["escalated-privileged"]);
    expect(line({ privileged: true, external: true })).toEqual(["external-privileged"]);
    expect(line({ privileged: true, stale: true })).toEqual(["stale-privileged"]);
    expect(line({ privileged: true, notInCode: true })).toEqual(["privileged-not-in-code"]);
    expect(line({ external: true, stale: true })).toEqual(["external", "stale"]);
    // A privilege alone is the expected state, not attention.
    expect(line({ privileged: true })).toEqual([]);
    expect(line({})).toEqual([]);
    // Each level outranks the next, in one list.
    const ranked = [
      line({ privileged: true, escalated: true, external: true }),
      line({ privileged: true, escalated: true }),
      line({ wallBreach: true }),
      line({ privileged: true, notInCode: true }),
      line({ privileged: true, external: true }),
      line({ privileged: true, stale: true }),
      line({ escalated: true }),
      line({ external: true }),
      line({ notInCode: true }),
      line({ stale: true }),
      [],
    ];
    expect([...ranked].reverse().sort(compareSeverities)).toEqual(ranked);
  });

  it("gives a person their lines' severities, and orders people by the riskiest, then by the next", () => {
    const a = personSeverities([["stale"], ["stale-privileged"]]);
    expect(a).toEqual(["stale-privileged", "stale"]);
    expect(compareSeverities(a, ["stale-privileged"])).toBeLessThan(0);
    expect(compareSeverities(["external"], ["escalated-privileged"])).toBeGreaterThan(0);
    expect(compareSeverities([], [])).toBe(0);
    expect(new Set(SEVERITY).size).toBe(SEVERITY.length);
  });
});

const person = (
  key: string,
  flags: ReviewPerson["flags"],
  lines: ReviewPerson["lines"],
  more: Partial<ReviewPerson> = {},
): ReviewPerson => ({
  key,
  userId: 1,
  name: key,
  lines,
  lastActivity: null,
  flags,
  ...more,
});
const ORG_ADMIN = { scope: "organization", status: "member" as const, permissions: ["ORG_ADMIN"] };
const MEMBER = { scope: "organization", status: "member" as const, permissions: [] };
const UPLOAD = { scope: "database 9", database: "DB", status: "granted" as const, permissions: ["DB_UPLOAD"] };

describe("a packet's people by risk", () => {
  it("sorts the riskiest person first, not by email; a privileged, active, unchanged person needs no attention", () => {
    const org = {
      id: 1,
      people: [
        person("ada@firm.example", ["privileged"], [ORG_ADMIN]),
        person("bob@firm.example", ["stale"], [MEMBER, UPLOAD]),
        person("eve@outside.example", ["privileged", "external", "stale"], [{ ...MEMBER, permissions: ["LEGAL_HOLD_ADMIN"] }]),
        person("zed@firm.example", ["privileged"], [{ ...MEMBER, permissions: ["ORG_ADMIN"] }]),
      ],
      since: {
        previousAsOf: "",
        gained: [
          { key: "eve@outside.example", scope: "organization", after: { ...MEMBER, permissions: ["LEGAL_HOLD_ADMIN"] }, attribution: "" },
        ],
        lost: [],
        changed: [
          {
            key: "zed@firm.example",
            scope: "organization",
            before: MEMBER,
            after: { ...MEMBER, permissions: ["ORG_ADMIN"] },
            attribution: "",
          },
        ],
      },
    } as unknown as ReviewOrganization;
    expect(risksOf(org).map((x) => [x.person.key, x.why])).toEqual([
      ["eve@outside.example", ["external-escalated-privileged", "stale-privileged"]],
      ["zed@firm.example", ["escalated-privileged"]],
      ["bob@firm.example", ["stale"]],
      ["ada@firm.example", []],
    ]);
    expect(attentionOf(org).map((x) => x.person.key)).toEqual(["eve@outside.example", "zed@firm.example", "bob@firm.example"]);
  });

  it("names each reason once per person, riskiest first, including walls and end dates from the code", () => {
    const org = {
      people: [
        person("a@x", ["walled", "wall-breach"], [MEMBER]),
        person("b@x", ["expiring-soon", "not-in-code"], [MEMBER], {
          inCode: { lines: [{ scope: "organization", declaredBy: [], endsOn: "2026-12-01" }], walls: [] },
        }),
        person("c@x", ["suspended", "not-a-member"], [{ ...UPLOAD, active: false }]),
        person("d@x", [], [MEMBER]),
      ],
    } as unknown as ReviewOrganization;
    expect(attentionOf(org).map((x) => [x.person.key, x.why])).toEqual([
      ["a@x", ["wall-breach"]],
      ["b@x", ["not-in-code", "expiring-soon"]],
      ["c@x", ["suspended", "not-a-member"]],
    ]);
  });

  it("puts a line's flags on that line only: a member row with no permission does not say privileged", () => {
    const p = person("ada@firm.example", ["privileged", "stale", "not-in-code"], [MEMBER, { ...UPLOAD, permissions: ["DB_ADMIN"] }], {
      inCode: {
        lines: [
          { scope: "organization", declaredBy: ['OrgMember "ada"'] },
          { scope: "database 9", declaredBy: [] },
        ],
        walls: [],
      },
    });
    expect(lineFlags(p, p.lines[0]!)).toEqual(["stale"]);
    expect(lineFlags(p, p.lines[1]!)).toEqual(["privileged", "stale", "not-in-code"]);
  });

  it("is stale only after existing for the whole window without acting", () => {
    const asOf = Date.parse("2026-11-20T12:00:00Z");
    const user = { userId: 7, lastActivity: null };
    // Added the day before: not stale. Added before the window (or no addition in the log): stale.
    expect(isStale(user, 90, asOf, asOf - DAY)).toBe(false);
    expect(isStale(user, 90, asOf, asOf - 91 * DAY)).toBe(true);
    expect(isStale(user, 90, asOf, -Infinity)).toBe(true);
    expect(isStale({ userId: 7, lastActivity: new Date(asOf - 10 * DAY).toISOString() }, 90, asOf, -Infinity)).toBe(false);
    expect(isStale({ userId: null, lastActivity: null }, 90, asOf, -Infinity)).toBe(false);
  });
});
