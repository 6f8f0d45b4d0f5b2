/**
 * The pure rules of the policy pack (policy/rules.ts), on resource properties in both shapes the
 * engine hands a policy (checked inputs; outputs) and with preview unknowns, which must never
 * make a violation.
 */
import { describe, expect, it } from "vitest";
import { OrganizationPermission } from "../../contract";
import { MODULE } from "../../provider/resources/support/resourceClass";
import {
  declaredBy,
  declarationsOf,
  NOT_KNOWN,
  PLUGIN_TYPE_PREFIX,
  RESOURCE_KINDS,
  toPlain,
  TYPE_PREFIX,
  type ResourceInfo,
} from "../../policy/declarations";
import { PACKAGE } from "../../provider/plugin/server";
import { resourceKinds } from "../../provider/runtime";
import { orgPermissionsAllowedDomains } from "../../policy/policies";
import { databaseAdminFindings } from "../../policy/rules/databaseAdmin";
import { invitationExpiryFindings } from "../../policy/rules/invitationExpiry";
import { memberDomainFindings } from "../../policy/rules/memberDomains";
import { orgAdminCountFindings } from "../../policy/rules/orgAdminCount";
import { orgPermissionDomainFindings } from "../../policy/rules/orgPermissionDomains";
import { ownershipFindings } from "../../policy/rules/ownership";
import { res, UNKNOWN_WIRE, urnOf } from "./fixtures";

const plain = (r: ResourceInfo): ResourceInfo => ({ ...r, props: toPlain(r.props) as Record<string, unknown> });
const declared = (...rs: ResourceInfo[]) => declaredBy(rs.map(plain));
const messages = (fs: { message: string }[]) => fs.map((f) => f.message);

const DOMAINS = { allowedDomains: ["northwind.example"] };
const DAY = 86_400_000;

describe("the pack agrees with the provider", () => {
  it("type tokens; the permissions an external reviewer may be allowed are the contract's, ORG_ADMIN aside", () => {
    expect(TYPE_PREFIX).toBe(`pulumi-nodejs:dynamic/${MODULE}:`);
    // The plugin face's tokens are the same kinds: the pack reads a program on either face alike.
    expect(PLUGIN_TYPE_PREFIX).toBe(`${PACKAGE}:index:`);
    const ada = { organizationId: 102, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] };
    const dynamicFace = declarationsOf(plain(res("OrgMember", "ada", ada)));
    const pluginFace = declarationsOf(plain({ ...res("OrgMember", "ada", ada), type: `${PLUGIN_TYPE_PREFIX}OrgMember` }));
    expect(pluginFace).toEqual(dynamicFace);
    expect(pluginFace.declarations).toHaveLength(1);
    const schema = orgPermissionsAllowedDomains.configSchema!.properties.externalReviewerPermissions as { items: { enum: string[] } };
    expect(schema.items.enum).toEqual(OrganizationPermission.options.filter((p) => p !== "ORG_ADMIN"));
  });

  it("knows every resource kind the provider registers, so none is invisible to the policies and to review --stack", () => {
    expect(Object.keys(RESOURCE_KINDS).sort()).toEqual(resourceKinds().sort());
    // Each access kind is read: even with nothing known, it declares a person, a roster or a wall.
    for (const [kind, what] of Object.entries(RESOURCE_KINDS)) {
      const d = declarationsOf(res(kind, "x", {}));
      const found = d.declarations.length + d.rosters.length + (d.walls?.length ?? 0);
      expect(found > 0, `${kind} (${what})`).toBe(what === "access");
    }
  });
});

describe("toPlain", () => {
  it("turns sentinel strings and throwing reads into NOT_KNOWN, one property at a time", () => {
    const props = new Proxy(
      { a: 1, b: "x", secret: "y" },
      {
        get: (t, k) =>
          k === "secret"
            ? (() => {
                throw new Error("string value at .secret can't be known during preview");
              })()
            : (t as any)[k],
      },
    );
    expect(toPlain({ p: props, list: [UNKNOWN_WIRE, "ok"], n: null })).toEqual({
      p: { a: 1, b: "x", secret: NOT_KNOWN },
      list: [NOT_KNOWN, "ok"],
      n: null,
    });
    expect(toPlain(UNKNOWN_WIRE)).toBe(NOT_KNOWN);
  });
});

describe("declarationsOf reads checked inputs and outputs alike", () => {
  it("OrgMember: inputs manage permissions when given; outputs when `managed` lists them", () => {
    const inputs = declarationsOf(
      plain(res("OrgMember", "ada", { organizationId: 102, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] })),
    );
    expect(inputs.declarations[0]).toMatchObject({
      scope: "organization",
      scopeId: 102,
      level: "one person",
      email: "ada@northwind.example",
      permissions: { known: ["ORG_ADMIN"], partial: false },
    });
    const noPerms = declarationsOf(plain(res("OrgMember", "bob", { organizationId: 102, email: "Bob@Northwind.example" })));
    expect(noPerms.declarations[0]).toMatchObject({ email: "bob@northwind.example", permissions: undefined });
    const outputs = declarationsOf(
      plain(
        res("OrgMember", "ada", {
          organizationId: 102,
          email: "ada@northwind.example",
          permissions: ["ORG_ADMIN"],
          managed: ["userIdentifiers"],
          status: "active",
          userId: 1001,
        }),
      ),
    );
    expect(outputs.declarations[0]).toMatchObject({ permissions: undefined, status: "active", userId: 1001 });
  });

  it("OrganizationMembers: input map entries, or the live entries listed in `managed`", () => {
    const inputs = declarationsOf(
      plain(
        res("OrganizationMembers", "legal", {
          organizationId: 102,
          mode: "authoritative",
          members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] }, "alan@northwind.example": {} },
          protectedEmails: ["breakglass@northwind.example"],
        }),
      ),
    );
    expect(inputs.rosters[0]).toMatchObject({
      mode: "authoritative",
      people: new Set(["ada@northwind.example", "alan@northwind.example"]),
      protectedPeople: new Set(["breakglass@northwind.example"]),
    });
    expect(inputs.declarations.map((d) => [d.email, d.level, d.permissions])).toEqual([
      ["ada@northwind.example", "authoritative roster", { known: ["ORG_ADMIN"], partial: false }],
      ["alan@northwind.example", "authoritative roster", undefined],
    ]);
    const live = (permissions: string[], userId: number | null) => ({
      status: userId ? "active" : "invited",
      userId,
      firstName: null,
      lastName: null,
      permissions,
      userIdentifiers: [],
    });
    const outputs = declarationsOf(
      plain(
        res("OrganizationMembers", "legal", {
          organizationId: 102,
          mode: "authoritative",
          members: {
            "ada@northwind.example": live(["ORG_ADMIN"], 1001),
            "grace@northwind.example": live([], 1002),
            "alan@northwind.example": live(["AI_ADMIN"], 1003),
          },
          managed: { "ada@northwind.example": ["permissions"], "alan@northwind.example": ["userIdentifiers"] },
        }),
      ),
    );
    // grace is live but not declared (authoritative outputs list everyone).
    expect(outputs.declarations.map((d) => [d.email, d.userId, d.permissions])).toEqual([
      ["ada@northwind.example", 1001, { known: ["ORG_ADMIN"], partial: false }],
      ["alan@northwind.example", 1003, undefined],
    ]);
  });

  it("DatabaseUsers: input arrays, or live entries listed in `managedUserIds`", () => {
    const inputs = declarationsOf(
      plain(res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "additive", users: { "1003": ["DB_UPLOAD"] } })),
    );
    expect(inputs.declarations).toMatchObject([
      { scope: "database", scopeId: 2001, userId: 1003, level: "additive roster", permissions: { known: ["DB_UPLOAD"] } },
    ]);
    const outputs = declarationsOf(
      plain(
        res("DatabaseUsers", "nvc", {
          databaseId: 2001,
          mode: "authoritative",
          users: {
            "1003": { permissions: ["DB_UPLOAD"], active: true, username: "alan" },
            "1004": { permissions: ["DB_ADMIN"], active: true, username: "barbara" },
          },
          managedUserIds: [1003],
          protectedUserIds: [1004],
        }),
      ),
    );
    expect(outputs.declarations.map((d) => d.userId)).toEqual([1003]);
    expect(outputs.rosters[0]!.protectedPeople).toEqual(new Set(["1004"]));
  });

  it("unknowns and missing required fields become NOT_KNOWN; other packages' resources are ignored", () => {
    const d = declarationsOf(
      plain(res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: ["DB_UPLOAD", UNKNOWN_WIRE] })),
    );
    expect(d.declarations[0]).toMatchObject({ userId: NOT_KNOWN, permissions: { known: ["DB_UPLOAD"], partial: true } });
    expect(declarationsOf(plain(res("OrgMember", "x", {}))).declarations[0]).toMatchObject({ scopeId: NOT_KNOWN, email: NOT_KNOWN });
    expect(
      declarationsOf(plain(res("OrganizationMembers", "r", { organizationId: 102, mode: "authoritative", members: UNKNOWN_WIRE })))
        .rosters[0]!.people,
    ).toBe(NOT_KNOWN);
    expect(declarationsOf({ type: "aws:s3/bucket:Bucket", urn: "u", name: "b", props: {} })).toEqual({ declarations: [], rosters: [] });
  });
});

describe("org-permissions-allowed-domains", () => {
  it("is off without allowedDomains", () => {
    expect(
      orgPermissionDomainFindings(
        declared(res("OrgMember", "m", { organizationId: 102, email: "mallory@contoso.example", permissions: ["ORG_ADMIN"] })),
        {},
      ),
    ).toEqual([]);
  });

  it("flags organization permissions outside the allowed domains, naming resource, person, rule and fix", () => {
    const d = declared(
      res("OrgMember", "mallory", { organizationId: 102, email: "Mallory@Contoso.example", permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "ada", { organizationId: 102, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "plain", { organizationId: 102, email: "reviewer@contoso.example", permissions: [] }),
      res("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "additive",
        members: { "eve@contoso.example": { permissions: ["AI_ADMIN"] } },
      }),
      res("Invitation", "inv", { organizationId: 102, email: "trent@contoso.example", permissions: ["LEGAL_HOLD_ADMIN"] }),
    );
    const fs = orgPermissionDomainFindings(d, DOMAINS);
    expect(fs.map((f) => f.urn)).toEqual([
      urnOf("OrgMember", "mallory"),
      urnOf("OrganizationMembers", "legal"),
      urnOf("Invitation", "inv"),
    ]);
    expect(fs[0]!.message).toBe(
      'OrgMember "mallory": mallory@contoso.example would hold ORG_ADMIN in organization 102, but organization permissions are only for people of the allowed domains (northwind.example). ' +
        "Fix: remove the permissions from mallory@contoso.example, or add contoso.example to allowedDomains in the policy config.",
    );
  });

  it("external reviewers hold only externalReviewerPermissions, never ORG_ADMIN", () => {
    const d = declared(
      res("OrgMember", "jane", { organizationId: 102, email: "jane@lawfirm.example", permissions: ["LEGAL_HOLD_ADMIN"] }),
      res("OrgMember", "joe", { organizationId: 102, email: "joe@lawfirm.example", permissions: ["ORG_ADMIN", "LEGAL_HOLD_ADMIN"] }),
    );
    const cfg = { ...DOMAINS, externalReviewers: ["@lawfirm.example"], externalReviewerPermissions: ["LEGAL_HOLD_ADMIN", "ORG_ADMIN"] };
    expect(messages(orgPermissionDomainFindings(d, cfg))).toEqual([
      'OrgMember "joe": joe@lawfirm.example is an external reviewer and would hold ORG_ADMIN in organization 102; external reviewers may hold LEGAL_HOLD_ADMIN. Fix: remove ORG_ADMIN from joe@lawfirm.example.',
    ]);
    expect(orgPermissionDomainFindings(d, { ...DOMAINS, externalReviewers: ["jane@lawfirm.example"] }).map((f) => f.urn)).toEqual([
      urnOf("OrgMember", "jane"),
      urnOf("OrgMember", "joe"),
    ]);
  });

  it("a member named by user id is checked through userEmails, and reported when not mapped", () => {
    const d = declared(res("OrgMemberPermissions", "p", { organizationId: 102, userId: 1008, permissions: ["AI_ADMIN"] }));
    expect(messages(orgPermissionDomainFindings(d, DOMAINS))[0]).toContain(
      "user 1008 would hold AI_ADMIN in organization 102, but the policy cannot tell the email domain",
    );
    expect(messages(orgPermissionDomainFindings(d, { ...DOMAINS, userEmails: { "1008": "donald@contoso.example" } }))[0]).toContain(
      "donald@contoso.example would hold AI_ADMIN",
    );
    expect(orgPermissionDomainFindings(d, { ...DOMAINS, userEmails: { "1008": "ken@northwind.example" } })).toEqual([]);
  });

  it("never flags what is not known yet", () => {
    const d = declared(
      res("OrgMember", "a", { organizationId: 102, email: UNKNOWN_WIRE, permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "b", { organizationId: 102, email: "x@contoso.example", permissions: UNKNOWN_WIRE }),
      res("OrgMember", "c", { organizationId: UNKNOWN_WIRE, email: "x@contoso.example", permissions: ["ORG_ADMIN"] }),
      res("OrganizationMembers", "r", { organizationId: 102, mode: "additive", members: { "y@contoso.example": UNKNOWN_WIRE } }),
      res("OrgMemberPermissions", "p", { organizationId: 102, userId: UNKNOWN_WIRE, permissions: ["ORG_ADMIN"] }),
    );
    expect(orgPermissionDomainFindings(d, DOMAINS)).toEqual([]);
  });
});

describe("members-allowed-domains", () => {
  it("flags people outside the domains who are added or invited, except external reviewers", () => {
    const d = declared(
      res("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "additive",
        members: { "linus@example.com": {}, "ada@northwind.example": {} },
      }),
      res("Invitation", "inv", { organizationId: 102, email: "jane@lawfirm.example" }),
      res("UserIdentifiers", "ids", { organizationId: 102, email: "z@elsewhere.example", identifiers: [] }),
    );
    expect(messages(memberDomainFindings(d, DOMAINS))).toEqual([
      'OrganizationMembers "legal" adds (or, without an account, invites) linus@example.com to organization 102, but only people of the allowed domains (northwind.example) and listed external reviewers may join. Fix: remove linus@example.com from the program, or list them (or example.com) in externalReviewers in the policy config.',
      'Invitation "inv" invites jane@lawfirm.example to organization 102, but only people of the allowed domains (northwind.example) and listed external reviewers may join. Fix: remove jane@lawfirm.example from the program, or list them (or lawfirm.example) in externalReviewers in the policy config.',
    ]);
    expect(memberDomainFindings(d, { ...DOMAINS, externalReviewers: ["linus@example.com", "lawfirm.example"] })).toEqual([]);
    expect(memberDomainFindings(declared(res("Invitation", "inv", { organizationId: 102, email: UNKNOWN_WIRE })), DOMAINS)).toEqual([]);
  });
});

describe("org-admin-count", () => {
  const admin = (name: string, email: string, org = 102) =>
    res("OrgMember", name, { organizationId: org, email, permissions: ["ORG_ADMIN"] });

  it("flags more than maxOrgAdmins distinct people, counting every resource and invitations", () => {
    const d = declared(
      admin("a", "a@northwind.example"),
      admin("b", "b@northwind.example"),
      res("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "additive",
        members: { "c@northwind.example": { permissions: ["ORG_ADMIN"] }, "A@northwind.example": { permissions: ["ORG_ADMIN"] } },
      }),
      res("Invitation", "d", { organizationId: 102, email: "d@northwind.example", permissions: ["ORG_ADMIN"] }),
      admin("other-org", "e@northwind.example", 103),
    );
    expect(orgAdminCountFindings(d, { maxOrgAdmins: 4 })).toEqual([]);
    const [f] = orgAdminCountFindings(d, { maxOrgAdmins: 3 });
    expect(f!.message).toBe(
      'organization 102 would have 4 org admins, more than the 3 allowed (maxOrgAdmins): a@northwind.example (OrgMember "a", OrganizationMembers "legal"); b@northwind.example (OrgMember "b"); c@northwind.example (OrganizationMembers "legal"); d@northwind.example (Invitation "d"). ' +
        "Fix: take ORG_ADMIN from 1 of them (another organization permission may do), or raise maxOrgAdmins in the policy config.",
    );
  });

  it("unknown people or permissions are not counted towards the maximum", () => {
    const d = declared(
      admin("a", "a@northwind.example"),
      admin("b", UNKNOWN_WIRE),
      res("OrgMember", "c", { organizationId: 102, email: "c@northwind.example", permissions: UNKNOWN_WIRE }),
    );
    expect(orgAdminCountFindings(d, { maxOrgAdmins: 1, minOrgAdmins: 0 })).toEqual([]);
  });

  it("minimum: an authoritative roster without an org admin (default scope)", () => {
    const roster = res("OrganizationMembers", "legal", {
      organizationId: 102,
      mode: "authoritative",
      members: { "a@northwind.example": { permissions: ["AI_ADMIN"] }, "b@northwind.example": {} },
    });
    expect(messages(orgAdminCountFindings(declared(roster)))).toEqual([
      'organization 102 would have no org admin among what the stack declares (OrganizationMembers "legal"); at least 1 required (minOrgAdmins). 1 declared person has unmanaged permissions, which do not count. ' +
        'Fix: give ORG_ADMIN to someone in OrganizationMembers "legal", or lower minOrgAdmins / set scope in the policy config.',
    ]);
    // An OrgMember admin elsewhere in the stack counts; so does one in the roster.
    expect(orgAdminCountFindings(declared(roster, admin("a", "z@northwind.example")))).toEqual([]);
    // Additive rosters and per-person resources: only with scope "declared".
    const member = res("OrgMember", "m", { organizationId: 103, email: "m@northwind.example", permissions: [] });
    expect(orgAdminCountFindings(declared(member))).toEqual([]);
    expect(orgAdminCountFindings(declared(member), { scope: "declared" }).map((f) => f.urn)).toEqual([urnOf("OrgMember", "m")]);
    expect(orgAdminCountFindings(declared(roster), { minOrgAdmins: 0 })).toEqual([]);
  });

  it("minimum: never concluded while something could still be an admin", () => {
    const roster = (members: unknown) => res("OrganizationMembers", "legal", { organizationId: 102, mode: "authoritative", members });
    expect(orgAdminCountFindings(declared(roster(UNKNOWN_WIRE)))).toEqual([]);
    expect(orgAdminCountFindings(declared(roster({ "a@northwind.example": { permissions: UNKNOWN_WIRE } })))).toEqual([]);
    expect(orgAdminCountFindings(declared(roster({ "a@northwind.example": { permissions: [UNKNOWN_WIRE] } })))).toEqual([]);
    expect(orgAdminCountFindings(declared(roster({})), {})).toHaveLength(1);
    expect(
      orgAdminCountFindings(
        declared(
          roster({}),
          res("OrgMember", "x", { organizationId: UNKNOWN_WIRE, email: "x@northwind.example", permissions: ["ORG_ADMIN"] }),
        ),
      ),
    ).toEqual([]);
    expect(
      orgAdminCountFindings(declared(res("OrganizationMembers", "r", { organizationId: 102, mode: UNKNOWN_WIRE, members: {} }))),
    ).toEqual([]);
  });
});

describe("database-admin-present", () => {
  it("flags an authoritative roster without DB_ADMIN, naming the users", () => {
    const d = declared(
      res("DatabaseUsers", "nvc", {
        databaseId: 2001,
        mode: "authoritative",
        users: { "1003": ["DB_UPLOAD"], "1005": ["DB_LEGAL_HOLD", "DB_DELETE"] },
      }),
    );
    expect(messages(databaseAdminFindings(d))).toEqual([
      'database 2001 would have no DB_ADMIN among what the stack declares (DatabaseUsers "nvc": user 1003 DB_UPLOAD, user 1005 DB_LEGAL_HOLD+DB_DELETE). ' +
        'Fix: grant DB_ADMIN to at least one user in DatabaseUsers "nvc" (or protect an admin\'s user id in protectedUserIds and grant it there).',
    ]);
  });

  it("a DB_ADMIN grant anywhere in the stack counts, with an unknown user id too", () => {
    const roster = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: { "1003": ["DB_UPLOAD"] } });
    expect(
      databaseAdminFindings(
        declared(roster, res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: ["DB_ADMIN"] })),
      ),
    ).toEqual([]);
    expect(
      databaseAdminFindings(
        declared(roster, res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: 1004, permissions: UNKNOWN_WIRE })),
      ),
    ).toEqual([]);
    expect(
      databaseAdminFindings(
        declared(roster, res("DatabaseUserPermissions", "g", { databaseId: UNKNOWN_WIRE, userId: 1004, permissions: ["DB_ADMIN"] })),
      ),
    ).toEqual([]);
    expect(
      databaseAdminFindings(declared(res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: UNKNOWN_WIRE }))),
    ).toEqual([]);
  });

  it("per-user grants and additive rosters: only with scope declared", () => {
    const grants = declared(
      res("DatabaseUserPermissions", "a", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: ["DB_UPLOAD"] }),
      res("DatabaseUsers", "b", { databaseId: 2002, mode: "additive", users: { "1003": ["DB_UPLOAD"] } }),
    );
    expect(databaseAdminFindings(grants)).toEqual([]);
    expect(databaseAdminFindings(grants, { scope: "declared" }).map((f) => f.urn)).toEqual([
      urnOf("DatabaseUserPermissions", "a"),
      urnOf("DatabaseUsers", "b"),
    ]);
  });
});

describe("single-ownership-level", () => {
  it("the same person in an authoritative roster and as an OrgMember", () => {
    const d = declared(
      res("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "authoritative",
        members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
      }),
      res("OrgMember", "ada", { organizationId: 102, email: "ADA@northwind.example" }),
    );
    expect(ownershipFindings(d)).toEqual([
      {
        urn: urnOf("OrgMember", "ada"),
        message:
          'ada@northwind.example in organization 102 is managed by OrganizationMembers "legal" (authoritative roster) and OrgMember "ada" (one person): resources at two ownership levels (or twice at one) undo each other\'s changes on every run. ' +
          "Fix: keep ada@northwind.example in one of them and remove them from the other (or list them in the roster's protected emails to manage them elsewhere).",
      },
    ]);
  });

  it("two rosters for one organization; an authoritative roster removes whom others declare", () => {
    const d = declared(
      res("OrganizationMembers", "a", {
        organizationId: 102,
        mode: "authoritative",
        members: { "ada@northwind.example": {} },
        protectedEmails: ["breakglass@northwind.example"],
      }),
      res("OrganizationMembers", "b", {
        organizationId: 102,
        mode: "additive",
        members: { "ada@northwind.example": {}, "bob@northwind.example": {} },
      }),
      res("OrgMember", "glass", { organizationId: 102, email: "breakglass@northwind.example", permissions: ["ORG_ADMIN"] }),
      res("Invitation", "inv", { organizationId: 102, email: "new@northwind.example" }),
    );
    const fs = ownershipFindings(d);
    expect(fs.map((f) => f.urn)).toEqual([
      urnOf("OrganizationMembers", "b"),
      urnOf("OrganizationMembers", "b"),
      urnOf("Invitation", "inv"),
    ]);
    expect(fs[0]!.message).toContain(
      'ada@northwind.example in organization 102 is managed by OrganizationMembers "a" (authoritative roster) and OrganizationMembers "b" (additive roster)',
    );
    expect(fs[1]!.message).toBe(
      'bob@northwind.example in organization 102 is declared by OrganizationMembers "b" (additive roster), but OrganizationMembers "a" owns the whole of organization 102 (authoritative) and removes everyone it does not list or protect: the two undo each other on every run. ' +
        'Fix: move bob@northwind.example into OrganizationMembers "a", or list them in its protectedEmails to manage them with OrganizationMembers "b".',
    );
    expect(fs[2]!.message).toContain('new@northwind.example in organization 102 is declared by Invitation "inv"');
  });

  it("field-level resources for different fields are fine; a user id matches an email through outputs or userEmails", () => {
    const fields = declared(
      res("OrgMemberPermissions", "p", { organizationId: 102, email: "grace@northwind.example", permissions: ["AI_ADMIN"] }),
      res("UserIdentifiers", "i", { organizationId: 102, userId: 1002, identifiers: [] }),
    );
    expect(ownershipFindings(fields)).toEqual([]);
    const twice = declared(
      res("OrgMember", "grace", {
        organizationId: 102,
        email: "grace@northwind.example",
        managed: [],
        permissions: [],
        status: "active",
        userId: 1002,
      }),
      res("UserIdentifiers", "i", { organizationId: 102, userId: 1002, identifiers: [] }),
    );
    expect(messages(ownershipFindings(twice))).toEqual([
      expect.stringContaining(
        'grace@northwind.example in organization 102 is managed by OrgMember "grace" (one person) and UserIdentifiers "i" (one field: userIdentifiers)',
      ),
    ]);
    const viaConfig = declared(
      res("OrgMember", "g", { organizationId: 102, email: "grace@northwind.example" }),
      res("UserIdentifiers", "i", { organizationId: 102, userId: 1002, identifiers: [] }),
    );
    expect(ownershipFindings(viaConfig)).toEqual([]);
    expect(ownershipFindings(viaConfig, { userEmails: { "1002": "Grace@northwind.example" } })).toHaveLength(1);
  });

  it("databases: a user in an authoritative DatabaseUsers and a DatabaseUserPermissions; protected users are fine", () => {
    const d = declared(
      res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: { "1003": ["DB_ADMIN"] }, protectedUserIds: [1004] }),
      res("DatabaseUserPermissions", "alan", { databaseId: 2001, userId: 1003, permissions: ["DB_UPLOAD"] }),
      res("DatabaseUserPermissions", "barbara", { databaseId: 2001, userId: 1004, permissions: ["DB_ADMIN"] }),
      res("DatabaseUserPermissions", "ken", { databaseId: 2001, userId: 1010, permissions: ["DB_UPLOAD"] }),
    );
    expect(ownershipFindings(d).map((f) => [f.urn, f.message.split(":")[0]])).toEqual([
      [
        urnOf("DatabaseUserPermissions", "alan"),
        'user 1003 in database 2001 is managed by DatabaseUsers "nvc" (authoritative roster) and DatabaseUserPermissions "alan" (one person)',
      ],
      [
        urnOf("DatabaseUserPermissions", "ken"),
        'user 1010 in database 2001 is declared by DatabaseUserPermissions "ken" (one person), but DatabaseUsers "nvc" owns the whole of database 2001 (authoritative) and removes everyone it does not list or protect',
      ],
    ]);
  });

  it("never flags what is not known yet", () => {
    const d = declared(
      res("OrganizationMembers", "a", { organizationId: 102, mode: "authoritative", members: UNKNOWN_WIRE }),
      res("OrgMember", "x", { organizationId: 102, email: "x@northwind.example" }),
      res("OrgMember", "y", { organizationId: 102, email: UNKNOWN_WIRE }),
      res("OrgMember", "z", { organizationId: UNKNOWN_WIRE, email: "x@northwind.example" }),
      res("DatabaseUsers", "nvc", {
        databaseId: 2001,
        mode: "authoritative",
        users: { "1003": ["DB_ADMIN"] },
        protectedUserIds: UNKNOWN_WIRE,
      }),
      res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: ["DB_UPLOAD"] }),
      res("DatabaseUserPermissions", "h", { databaseId: 2001, userId: 1010, permissions: ["DB_UPLOAD"] }),
    );
    expect(ownershipFindings(d)).toEqual([]);
  });
});

describe("invitation-expiry-horizon", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");
  const iso = (days: number) => new Date(now + days * DAY).toISOString();
  const invitation = (name: string, extra: Record<string, unknown>) =>
    res("Invitation", name, { organizationId: 102, email: `${name}@northwind.example`, ...extra });

  it("flags a pending invitation expiring before the next scheduled run", () => {
    const d = declared(
      invitation("soon", { status: "pending", expiration: iso(3) }),
      invitation("later", { status: "pending", expiration: iso(10) }),
      invitation("done", { status: "accepted", expiration: iso(1) }),
    );
    expect(invitationExpiryFindings(d, {}, now)).toEqual([
      {
        urn: urnOf("Invitation", "soon"),
        message:
          'Invitation "soon": the invitation of soon@northwind.example to organization 102 expires on 2026-03-04 (in 3 days), before the next scheduled run (in 7 days, horizonDays): the person may not be able to accept it. ' +
          "Fix: ask soon@northwind.example to accept before then, or change resendTrigger to re-send it now for a fresh 14 days.",
      },
    ]);
    expect(invitationExpiryFindings(d, { horizonDays: 2 }, now)).toEqual([]);
  });

  it("a new or re-sent invitation lives invitationLifetimeDays; not re-sending an expired one is flagged", () => {
    const d = declared(invitation("new", {}), invitation("expired", { status: "expired", expiration: iso(-1) }));
    expect(invitationExpiryFindings(d, {}, now)).toEqual([]);
    expect(messages(invitationExpiryFindings(d, { horizonDays: 30 }, now))).toEqual([
      expect.stringContaining(
        "the invitation of new@northwind.example to organization 102 sent by this run, expires in 14 days, before the next scheduled run (in 30 days, horizonDays)",
      ),
      expect.stringContaining("is re-sent by this run and expires in 14 days"),
    ]);
    expect(
      messages(invitationExpiryFindings(declared(invitation("stale", { status: "expired", resendWhenExpired: false })), {}, now)),
    ).toEqual([
      'Invitation "stale": the invitation of stale@northwind.example to organization 102 has expired and will not be re-sent (resendWhenExpired: false). Fix: set resendWhenExpired to true or change resendTrigger to re-send it, or remove the resource.',
    ]);
  });

  it("OrgMember outputs with status invited; unknowns are skipped", () => {
    const d = declared(
      res("OrgMember", "m", {
        organizationId: 102,
        email: "m@northwind.example",
        status: "invited",
        invitationExpiration: iso(1),
        managed: [],
        permissions: [],
      }),
      res("OrgMember", "n", { organizationId: 102, email: "n@northwind.example" }),
      invitation("u", { status: UNKNOWN_WIRE }),
      invitation("v", { status: "pending", expiration: UNKNOWN_WIRE }),
    );
    expect(invitationExpiryFindings(d, {}, now).map((f) => f.urn)).toEqual([urnOf("OrgMember", "m")]);
  });
});
