/**
 * The stale-privileged-access rule (policy/rules/stalePrivileged.ts, issue 27) on plain
 * declarations and stack outputs: answers found in outputs, one finding per granting resource
 * (organization permissions and DB_ADMIN, inputs and outputs), the rest on the stack; exempt
 * people, invitations, other organizations and unknown permissions are not flagged.
 */
import { describe, expect, it } from "vitest";
import { declaredBy, toPlain, type ResourceInfo } from "../../policy/declarations";
import { staleAccessFindings, staleAnswersOf, type StaleAnswer } from "../../policy/rules/stalePrivileged";
import { res, UNKNOWN_WIRE } from "./fixtures";

const declared = (...rs: ResourceInfo[]) => declaredBy(rs.map((r) => ({ ...r, props: toPlain(r.props) as Record<string, unknown> })));

/** What getStalePrivilegedPeople returns: Ada (ORG_ADMIN, DB_ADMIN on 2001) and Barbara (DB_ADMIN on 2001, 2002) stale. */
const ANSWER = {
  organizationId: 102,
  asOf: "2026-11-25T10:00:00.000Z",
  windowBegin: "2026-08-27T10:00:00.000Z",
  staleDays: 90,
  privileged: 4,
  stale: [
    { userId: 1001, email: "ada@northwind.example", name: "Ada Lovelace", organizationPermissions: ["ORG_ADMIN"], databaseAdminOf: [2001] },
    {
      userId: 1004,
      email: "barbara@northwind.example",
      name: "Barbara Liskov",
      organizationPermissions: [],
      databaseAdminOf: [2001, 2002],
    },
  ],
  unreadableDatabases: [],
};
const answers: StaleAnswer[] = staleAnswersOf({ stale: ANSWER });
const WINDOW = "no activity in organization 102's log in the 90 days to 2026-11-25 (stack output stale)";

describe("stale-privileged-access: finding the answers", () => {
  it("reads an answer from an output, from an array or object of them, and nothing else", () => {
    expect(answers).toEqual([
      {
        output: "stale",
        organizationId: 102,
        asOf: ANSWER.asOf,
        staleDays: 90,
        stale: [expect.objectContaining({ userId: 1001 }), expect.objectContaining({ userId: 1004 })],
      },
    ]);
    const nested = staleAnswersOf({
      byOrg: [ANSWER, { ...ANSWER, organizationId: 103, stale: [] }],
      keyed: { legal: ANSWER },
      other: { organizationId: 102, stale: [] },
      text: "hello",
    });
    expect(nested.map((a) => [a.output, a.organizationId])).toEqual([
      ["byOrg[0]", 102],
      ["byOrg[1]", 103],
      ["keyed.legal", 102],
    ]);
    expect(staleAnswersOf({})).toEqual([]);
  });
});

describe("stale-privileged-access: findings", () => {
  it("flags each granting resource, by email or by user id, inputs or outputs; what no resource grants goes on the stack", () => {
    const roster = res("OrganizationMembers", "org", {
      organizationId: 102,
      mode: "additive",
      members: { "Ada@Northwind.example": { permissions: ["ORG_ADMIN"] } },
    });
    const dbUsers = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1004": { permissions: ["DB_ADMIN"], active: true, username: "barbara" } },
      managedUserIds: [1004],
    });
    const findings = staleAccessFindings(declared(roster, dbUsers), answers);
    expect(findings).toEqual([
      {
        urn: roster.urn,
        message:
          `OrganizationMembers "org" grants ada@northwind.example (user 1001) ORG_ADMIN, and ada@northwind.example (user 1001) has had ${WINDOW}. ` +
          "Fix: take the privilege away if it is no longer needed, or list ada@northwind.example in the policy's exempt config if it must stay (a break-glass account).",
      },
      {
        message:
          `ada@northwind.example (user 1001) holds DB_ADMIN on database 2001 outside this stack's code, and has had ${WINDOW}. ` +
          "Fix: take the privilege away (in the web app, or by declaring the person in the program), or list ada@northwind.example in the policy's exempt config.",
      },
      {
        urn: dbUsers.urn,
        message: expect.stringMatching(
          /^DatabaseUsers "nvc" grants barbara@northwind\.example \(user 1004\) DB_ADMIN on database 2001, and/,
        ),
      },
      {
        message: expect.stringMatching(
          /^barbara@northwind\.example \(user 1004\) holds DB_ADMIN on database 2002 outside this stack's code/,
        ),
      },
    ]);
  });

  it("an id-named grant matches through userEmails; a user id or an email in exempt silences the person", () => {
    const perms = res("OrgMemberPermissions", "p", { organizationId: 102, userId: 1001, permissions: ["ORG_ADMIN", "AI_ADMIN"] });
    const grant = res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: 1004, permissions: ["DB_ADMIN"] });
    const all = staleAccessFindings(declared(perms, grant), answers, { userEmails: { "1001": "ada@northwind.example" } });
    expect(all.filter((f) => f.urn === perms.urn).map((f) => f.message)).toEqual([
      expect.stringContaining('OrgMemberPermissions "p" grants ada@northwind.example (user 1001) ORG_ADMIN, and'),
    ]);
    expect(all.filter((f) => f.urn === grant.urn)).toHaveLength(1);
    expect(staleAccessFindings(declared(perms, grant), answers, { exempt: ["ADA@northwind.example", "1004"] })).toEqual([]);
  });

  it("a person's own limit (a privilege's, from the answer) is the window their message names", () => {
    const own = staleAnswersOf({ stale: { ...ANSWER, stale: [{ ...ANSWER.stale[0], limitDays: 30 }] } });
    expect(staleAccessFindings(declared(), own).map((f) => f.message)).toEqual([
      expect.stringContaining("has had no activity in organization 102's log in the 30 days to 2026-11-25 (stack output stale)"),
    ]);
  });

  it("invitations, other organizations, grants without the privilege and unknown permissions grant nothing to flag", () => {
    const quiet = [
      res("Invitation", "i", { organizationId: 102, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "elsewhere", { organizationId: 103, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "plain", { organizationId: 102, email: "ada@northwind.example", permissions: ["AI_ADMIN"] }),
      res("DatabaseUserPermissions", "upload", { databaseId: 2001, userId: 1004, permissions: ["DB_UPLOAD"] }),
      res("DatabaseUserPermissions", "later", { databaseId: 2002, userId: 1004, permissions: [UNKNOWN_WIRE] }),
    ];
    const findings = staleAccessFindings(declared(...quiet), answers);
    // Everything each holds is outside the stack's code: one stack finding per person.
    expect(findings).toEqual([
      {
        message: expect.stringMatching(
          /^ada@northwind\.example \(user 1001\) holds ORG_ADMIN, DB_ADMIN on database 2001 outside this stack's code/,
        ),
      },
      {
        message: expect.stringMatching(
          /^barbara@northwind\.example \(user 1004\) holds DB_ADMIN on database 2001, DB_ADMIN on database 2002 outside/,
        ),
      },
    ]);
  });
});
