/**
 * One grant, three shapes: what the exporter read (ExportedOrganization), the review packet's line
 * of access (AccessLine) and the policy pack's Declaration each read back as a Grant of the model
 * (contract/grants.ts), and the three agree on who holds it (claim keys) and whether it is privileged.
 */
import { describe, expect, it } from "vitest";
import { claimKeysOf, eventNamesGrant, isPrivilegedGrant, sameClaim, type Grant } from "../../contract/grants";
import { grantsOfExport, type ExportedOrganization } from "../../cli/export/read";
import { buildPacket } from "../../cli/review/packet";
import { grantOfLine } from "../../cli/review/format";
import { declaredBy, grantOfDeclaration } from "../../policy/declarations";
import { res } from "../policy/fixtures";

const ORG: ExportedOrganization = {
  id: 102,
  name: "Northwind Legal",
  members: [
    { email: "ada@x.example", userId: 1003, permissions: ["ORG_ADMIN"] },
    { email: "bob@x.example", userId: 1004, permissions: [] },
  ],
  invitations: [{ email: "cy@x.example", permissions: ["AI_ADMIN"], expiration: "2026-12-01T00:00:00.000Z", expired: false }],
  databases: [
    {
      id: 2001,
      name: "Matter 1",
      grants: [
        { userId: 1003, permissions: ["DB_ADMIN"], active: true, who: "Ada <ada@x.example>", member: true },
        { userId: 1004, permissions: ["DB_UPLOAD"], active: true, who: "Bob <bob@x.example>", member: true },
        { userId: 1009, permissions: ["DB_ADMIN", "DB_UPLOAD"], active: true, who: "Eve eve", member: false },
      ],
    },
  ],
  skippedDatabases: [],
};

/** The same access as the stack's code declares it. */
const DECLARED = declaredBy([
  res("OrgMember", "ada", { organizationId: 102, email: "Ada@X.example", permissions: ["ORG_ADMIN"] }),
  res("Invitation", "cy", { organizationId: 102, email: "cy@x.example", permissions: ["AI_ADMIN"] }),
  res("OrganizationMembers", "team", { organizationId: 102, mode: "additive", members: { "bob@x.example": { permissions: [] } } }),
  res("DatabaseUserPermissions", "ada-2001", { databaseId: 2001, userId: 1003, permissions: ["DB_ADMIN"] }),
  res("DatabaseUsers", "matter-1", {
    databaseId: 2001,
    mode: "authoritative",
    users: { "1004": ["DB_UPLOAD"], "1009": ["DB_ADMIN", "DB_UPLOAD"] },
  }),
]);

const packet = buildPacket({ scope: { grants: true, invitations: true, identifiers: false }, organizations: [ORG] }, new Map(), {
  asOf: Date.parse("2026-11-01T00:00:00Z"),
  staleDays: 90,
  firmDomains: [],
});
const people = packet.organizations[0]!.people;
const lines: Grant[] = people.flatMap((p) => p.lines.map((l) => grantOfLine(l, p, ORG.id)));
const declarations = DECLARED.declarations.map(grantOfDeclaration).filter((g): g is Grant => g !== undefined);

describe("the exporter, the packet and the pack agree on a grant through the model", () => {
  const exported = grantsOfExport(ORG);

  it.each(exported.map((g) => [`${g.scope.kind} ${g.scope.id}: ${g.subject.email ?? `user ${g.subject.userId}`}`, g] as const))(
    "%s",
    (_, g) => {
      const line = lines.filter((l) => sameClaim(l, g));
      const declared = declarations.filter((d) => sameClaim(d, g));
      expect(line).toHaveLength(1);
      expect(declared).toHaveLength(1);
      // The same claim keys from the export and the packet (both know email and user id of a member).
      expect(claimKeysOf(line[0]!)).toEqual(claimKeysOf(g));
      expect(isPrivilegedGrant(line[0]!)).toBe(isPrivilegedGrant(g));
      expect(isPrivilegedGrant(declared[0]!)).toBe(isPrivilegedGrant(g));
    },
  );

  it("the packet's privileged flag is the model's: a person holding a privileged grant", () => {
    for (const p of people) {
      const privileged = p.lines.some((l) => isPrivilegedGrant(grantOfLine(l, p, ORG.id)));
      expect(p.flags.includes("privileged")).toBe(privileged);
    }
    expect(people.filter((p) => p.flags.includes("privileged")).map((p) => p.key)).toEqual(["ada@x.example", "cy@x.example", "user 1009"]);
  });

  it("a declaration whose scope is not known yet is no grant; one naming a person by user id claims them by it", () => {
    const [unknownScope] = declaredBy([res("OrgMember", "x", { email: "ada@x.example" })]).declarations;
    expect(grantOfDeclaration(unknownScope!)).toBeUndefined();
    const [byId] = declaredBy([
      res("OrgMemberPermissions", "ada-perms", { organizationId: 102, userId: 1003, permissions: ["ORG_ADMIN"] }),
    ]).declarations;
    const g = grantOfDeclaration(byId!)!;
    expect(claimKeysOf(g)).toEqual(["member:102:user:1003"]);
    expect(sameClaim(g, exported[0]!)).toBe(true);
    expect(g.declaredBy).toBe('OrgMemberPermissions "ada-perms"');
  });

  it("an activity event names a grant of the packet's line as it names the exporter's: the subject in the scope", () => {
    const [orgGrant, , , dbGrant] = exported;
    const ada = people.find((p) => p.key === "ada@x.example")!;
    const [orgLine, dbLine] = ada.lines.map((l) => grantOfLine(l, ada, ORG.id));
    const promoted = { userId: 1003, email: "ADA@x.example" };
    const granted = { userId: 1003, databaseId: 2001 };
    expect([orgGrant, orgLine].map((g) => eventNamesGrant(promoted, g!))).toEqual([true, true]);
    expect([orgGrant, orgLine].map((g) => eventNamesGrant(granted, g!))).toEqual([false, false]);
    expect([dbGrant, dbLine].map((g) => eventNamesGrant(granted, g!))).toEqual([true, true]);
    expect(eventNamesGrant({ ...granted, databaseId: 2002 }, dbLine!)).toBe(false);
    expect(eventNamesGrant(null, orgLine!)).toBe(false);
  });
});
