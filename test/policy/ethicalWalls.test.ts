/**
 * The ethical-walls policy (policy/rules/ethicalWalls.ts, issue 26) on the plain model. Grants
 * named by user id are matched through the wall's walledUsers (what its check read from the API),
 * the emails member resources pair with ids, and the userEmails config. The same policy in the
 * pack's own process, as the engine runs it: test/engine/policyPack.test.ts.
 */
import { describe, expect, it } from "vitest";
import { declaredBy } from "../../policy/declarations";
import { ethicalWallFindings } from "../../policy/rules/ethicalWalls";
import { nvcWall, res, UNKNOWN_WIRE } from "./fixtures";

const messages = (resources: ReturnType<typeof res>[], cfg = {}) => ethicalWallFindings(declaredBy(resources), cfg).map((f) => f.message);

describe("ethical-walls on the plain model", () => {
  it("a roster granting a walled user id on a walled database, matched through the wall's walledUsers", () => {
    const roster = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1010": ["DB_UPLOAD"], "1007": ["DB_UPLOAD"] },
    });
    const findings = ethicalWallFindings(declaredBy([nvcWall(), roster]));
    expect(findings).toEqual([
      {
        urn: roster.urn,
        message:
          'EthicalWall "nvc-wall" walls ken@northwind.example off database 2001 (Ken advised Contoso), but DatabaseUsers "nvc" grants user 1010 (ken@northwind.example) DB_UPLOAD on it. ' +
          'Fix: take user 1010 (ken@northwind.example) out of DatabaseUsers "nvc", or change EthicalWall "nvc-wall" if the wall is wrong.',
      },
    ]);
  });

  it("a domain pattern, through the userEmails config and through an OrgMember's outputs", () => {
    const grant = res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: 1200, permissions: ["DB_ADMIN"] });
    expect(messages([nvcWall(), grant], { userEmails: { "1200": "Jane@Contoso-Counsel.example" } })).toEqual([
      expect.stringMatching(
        /^EthicalWall "nvc-wall" walls jane@contoso-counsel\.example \(by \*@contoso-counsel\.example\) off database 2001 .* DatabaseUserPermissions "g" grants user 1200 \(jane@contoso-counsel\.example\) DB_ADMIN on it\./,
      ),
    ]);
    const member = res("OrgMember", "jane", { organizationId: 102, email: "jane@contoso-counsel.example", userId: 1200, status: "active" });
    expect(messages([nvcWall(), grant, member])).toHaveLength(1);
  });

  it("two walls that contradict one roster: one finding for each wall", () => {
    const second = res("EthicalWall", "second", { databaseIds: [2001, 2002], people: ["ken@northwind.example"], reason: "lateral hire" });
    const roster = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: { "1010": ["DB_UPLOAD"] } });
    const found = messages([nvcWall(), second, roster]);
    expect(found).toHaveLength(2);
    expect(found[1]).toMatch(
      /^EthicalWall "second" walls ken@northwind\.example off database 2001 \(lateral hire\), but DatabaseUsers "nvc" grants user 1010/,
    );
  });

  it("ORG_ADMIN for a walled person where org admins reach a walled database (orgAdminAccess on): a breach the API cannot fix", () => {
    const wall = nvcWall({ orgAdminReach: { "2001": 102 } });
    const ken = res("OrgMember", "ken", { organizationId: 102, email: "Ken@Northwind.example", permissions: ["AI_ADMIN", "ORG_ADMIN"] });
    const findings = ethicalWallFindings(declaredBy([wall, ken]));
    expect(findings).toEqual([
      {
        urn: ken.urn,
        message:
          'EthicalWall "nvc-wall" walls ken@northwind.example off database 2001 (Ken advised Contoso), but OrgMember "ken" makes ken@northwind.example an org admin of organization 102, ' +
          "and database 2001 keeps orgAdminAccess on: org admins reach it, a breach the API cannot fix. " +
          "Fix: do not grant ORG_ADMIN to ken@northwind.example, or turn orgAdminAccess off for database 2001 in the web application.",
      },
    ]);
    // Another organization, another permission, or a wall whose database keeps org admins out: no finding.
    const elsewhere = res("OrgMember", "ken", { organizationId: 104, email: "ken@northwind.example", permissions: ["ORG_ADMIN"] });
    const plain = res("OrgMember", "ken", { organizationId: 102, email: "ken@northwind.example", permissions: ["AI_ADMIN"] });
    expect(messages([wall, elsewhere, plain])).toEqual([]);
    expect(messages([nvcWall(), ken])).toEqual([]);
  });

  it("no finding: another database, someone not walled, a user id nobody can map, or a wall not known yet", () => {
    const elsewhere = res("DatabaseUsers", "internal", { databaseId: 2002, mode: "additive", users: { "1010": ["DB_UPLOAD"] } });
    const others = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1007": ["DB_UPLOAD"], "1300": ["DB_ADMIN"] },
    });
    expect(messages([nvcWall(), elsewhere, others])).toEqual([]);
    const ken = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "additive", users: { "1010": ["DB_UPLOAD"] } });
    expect(messages([nvcWall({ people: UNKNOWN_WIRE }), ken])).toEqual([]);
    expect(messages([nvcWall({ databaseIds: UNKNOWN_WIRE }), ken])).toEqual([]);
    expect(messages([ken])).toEqual([]);
  });
});

describe("ethical-walls: matter-team walls and exceptions (issue 37)", () => {
  const teamWall = (props: Record<string, unknown> = {}) =>
    res("EthicalWall", "nvc-team", {
      databaseIds: [2001],
      team: ["alan@northwind.example"],
      alsoAllowed: ["frances@northwind.example"],
      reason: "NvC matter team",
      onBreach: "report",
      walledUsers: { "1001": "ada@northwind.example", "1007": "margaret@northwind.example" },
      ...props,
    });
  const waiver = {
    person: "margaret@northwind.example",
    approver: "grace@northwind.example",
    reason: "production engineer",
    clientConsentRef: "NVC-7",
    endsOn: "2026-12-01",
  };

  it("refuses a grant outside the team, naming wall, person and database; the team and alsoAllowed pass", () => {
    const roster = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "additive", users: { "1007": ["DB_UPLOAD"] } });
    const team = res("DatabaseUserPermissions", "alan", { databaseId: 2001, userId: 1003, permissions: ["DB_UPLOAD"] });
    const alan = res("OrgMember", "alan", { organizationId: 102, email: "alan@northwind.example", userId: 1003, status: "active" });
    expect(messages([teamWall(), roster, team, alan])).toEqual([
      'EthicalWall "nvc-team" admits only its matter team to database 2001 (NvC matter team), but DatabaseUsers "nvc" grants user 1007 (margaret@northwind.example), who is not on the team, DB_UPLOAD on it. ' +
        'Fix: take user 1007 (margaret@northwind.example) out of DatabaseUsers "nvc", add them to the team or alsoAllowed of EthicalWall "nvc-team", or record an approved exception.',
    ]);
  });

  it("a user id nobody can name is refused on a matter-team wall (only the team may reach it), not on a wall of people", () => {
    const roster = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "additive", users: { "1300": ["DB_UPLOAD"] } });
    expect(messages([teamWall(), roster])).toEqual([
      expect.stringMatching(
        /^EthicalWall "nvc-team" admits only its matter team to database 2001 .* grants user 1300 DB_UPLOAD on it, whom the pack cannot name\./,
      ),
    ]);
    expect(messages([nvcWall(), roster])).toEqual([]);
  });

  it("an exception in force admits the person and is listed apart in the wall's other findings; one not in force is named in theirs", () => {
    const margaret = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "additive", users: { "1007": ["DB_UPLOAD"] } });
    const ada = res("DatabaseUserPermissions", "ada", { databaseId: 2001, userId: 1001, permissions: ["DB_ADMIN"] });
    const admitted = teamWall({ exceptions: [waiver], exceptionsInForce: [waiver] });
    const found = messages([admitted, margaret, ada]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/grants user 1001 \(ada@northwind\.example\), who is not on the team, DB_ADMIN on it\./);
    expect(found[0]).toContain(
      "Exceptions in force on this wall: margaret@northwind.example (approved by grace@northwind.example: production engineer; client consent NVC-7; until 2026-12-01).",
    );
    const ended = messages([teamWall({ exceptions: [waiver], exceptionsInForce: [] }), margaret]);
    expect(ended).toEqual([
      expect.stringContaining("Their exception is not in force: margaret@northwind.example (approved by grace@northwind.example"),
    ]);
    // On a wall of people too.
    const walled = nvcWall({ people: ["margaret@northwind.example"], exceptions: [waiver], exceptionsInForce: [waiver] });
    expect(messages([walled, margaret])).toEqual([]);
  });
});
