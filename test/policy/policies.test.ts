/**
 * Each policy of the pack through `@pulumi/policy`'s own interfaces, in this process: the
 * policy's validateResource / validateStack called with the argument bags the analyzer builds
 * (props wrapped in `unknownCheckingProxy`, as the analyzer does, with preview unknowns as the
 * engine's sentinel; `getConfig`; `notApplicable` throwing). The pack in its own process, over
 * the analyzer's gRPC interface: test/engine/policyPack.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  unknownCheckingProxy,
  type Policy,
  type PolicyResource,
  type ResourceValidationArgs,
  type ResourceValidationPolicy,
  type StackValidationArgs,
  type StackValidationPolicy,
} from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import {
  databaseAdminPresent,
  externalAccessExpires,
  invitationExpiryHorizon,
  membersAllowedDomains,
  orgAdminCount,
  orgPermissionsAllowedDomains,
  policies,
  singleOwnershipLevel,
} from "../../policy/policies";
import { res, UNKNOWN_WIRE, urnOf } from "./fixtures";
import type { ResourceInfo } from "../../policy/declarations";

const repoRoot = path.resolve(__dirname, "../..");

class NotApplicable extends Error {}

interface Report {
  message: string;
  urn?: string;
}

/** What the analyzer hands a resource policy (server.js makeAnalyzeRpcFun). */
function resourceArgs(r: ResourceInfo, config: object): ResourceValidationArgs {
  const props = unknownCheckingProxy(structuredClone(r.props));
  return {
    type: r.type,
    urn: r.urn,
    name: r.name,
    props,
    opts: {
      protect: false,
      ignoreChanges: [],
      aliases: [],
      customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
      additionalSecretOutputs: [],
    },
    stackTags: new Map(),
    isType: () => false,
    asType: () => undefined,
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new NotApplicable(reason);
    },
  };
}

/** Runs a resource policy on each resource; "not applicable" counts as no report. */
async function validateResources(policy: ResourceValidationPolicy, resources: ResourceInfo[], config: object = {}): Promise<Report[]> {
  const reports: Report[] = [];
  for (const r of resources) {
    try {
      await (policy.validateResource as any)(resourceArgs(r, config), (message: string) => reports.push({ message, urn: r.urn }));
    } catch (e) {
      if (!(e instanceof NotApplicable)) throw e;
    }
  }
  return reports;
}

/** What the analyzer hands a stack policy (server.js makeAnalyzeStackRpcFun). */
async function validateStack(policy: StackValidationPolicy, resources: ResourceInfo[], config: object = {}): Promise<Report[]> {
  const reports: Report[] = [];
  const args: StackValidationArgs = {
    resources: resources.map((r): PolicyResource => ({
      ...resourceArgs(r, config),
      dependencies: [],
      propertyDependencies: {},
    })),
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new NotApplicable(reason);
    },
  };
  try {
    await policy.validateStack(args, (message, urn) => reports.push({ message, urn }));
  } catch (e) {
    if (!(e instanceof NotApplicable)) throw e;
  }
  return reports;
}

const DOMAINS = { allowedDomains: ["northwind.example"] };

describe("each policy through @pulumi/policy's argument bags (props behind unknownCheckingProxy)", () => {
  it("org-permissions-allowed-domains: an external org admin; an unknown email or permission is no violation", async () => {
    const bad = res("OrgMember", "mallory", { organizationId: 102, email: "mallory@contoso.example", permissions: ["ORG_ADMIN"] });
    expect(await validateResources(orgPermissionsAllowedDomains, [bad], DOMAINS)).toEqual([
      {
        urn: bad.urn,
        message: expect.stringMatching(
          /^OrgMember "mallory": mallory@contoso.example would hold ORG_ADMIN in organization 102, but organization permissions are only for people of the allowed domains \(northwind.example\)\. Fix: /,
        ),
      },
    ]);
    const preview = [
      res("OrgMember", "a", { organizationId: 102, email: UNKNOWN_WIRE, permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "b", { organizationId: UNKNOWN_WIRE, email: "b@contoso.example", permissions: ["ORG_ADMIN"] }),
      res("OrganizationMembers", "r", { organizationId: 102, mode: "additive", members: UNKNOWN_WIRE }),
      res("OrgMemberPermissions", "p", { organizationId: 102, userId: UNKNOWN_WIRE, permissions: ["ORG_ADMIN"] }),
      res("Invitation", "i", { organizationId: 102, email: "i@contoso.example", permissions: UNKNOWN_WIRE }),
    ];
    expect(await validateResources(orgPermissionsAllowedDomains, preview, DOMAINS)).toEqual([]);
    // Without allowedDomains the policy is not applicable.
    expect(await validateResources(orgPermissionsAllowedDomains, [bad], {})).toEqual([]);
  });

  it("members-allowed-domains: an outside invitation; an unknown email is no violation", async () => {
    const bad = res("Invitation", "inv", { organizationId: 102, email: "x@contoso.example" });
    expect((await validateResources(membersAllowedDomains, [bad], DOMAINS)).map((r) => r.message)).toEqual([
      expect.stringContaining('Invitation "inv" invites x@contoso.example to organization 102'),
    ]);
    expect(await validateResources(membersAllowedDomains, [bad], { ...DOMAINS, externalReviewers: ["contoso.example"] })).toEqual([]);
    expect(
      await validateResources(membersAllowedDomains, [res("Invitation", "inv", { organizationId: 102, email: UNKNOWN_WIRE })], DOMAINS),
    ).toEqual([]);
  });

  it("org-admin-count: too many admins; unknown permissions are not counted", async () => {
    const admins = ["a", "b", "c", "d"].map((n) =>
      res("OrgMember", n, { organizationId: 102, email: `${n}@northwind.example`, permissions: ["ORG_ADMIN"] }),
    );
    const reports = await validateStack(orgAdminCount, admins);
    expect(reports).toEqual([
      {
        urn: urnOf("OrgMember", "d"),
        message: expect.stringContaining("organization 102 would have 4 org admins, more than the 3 allowed (maxOrgAdmins)"),
      },
    ]);
    expect(await validateStack(orgAdminCount, admins, { maxOrgAdmins: 4 })).toEqual([]);
    const preview = [
      ...admins.slice(0, 3),
      res("OrgMember", "d", { organizationId: 102, email: "d@northwind.example", permissions: UNKNOWN_WIRE }),
    ];
    expect(await validateStack(orgAdminCount, preview)).toEqual([]);
  });

  it("database-admin-present: an authoritative roster without DB_ADMIN; an unknown grant is no violation", async () => {
    const roster = res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: { "1003": ["DB_UPLOAD"] } });
    expect(await validateStack(databaseAdminPresent, [roster])).toEqual([
      { urn: roster.urn, message: expect.stringContaining("database 2001 would have no DB_ADMIN among what the stack declares") },
    ]);
    const unknownGrant = res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: UNKNOWN_WIRE });
    expect(await validateStack(databaseAdminPresent, [roster, unknownGrant])).toEqual([]);
  });

  it("single-ownership-level: a roster member also an OrgMember; unknown people are no violation", async () => {
    const roster = res("OrganizationMembers", "legal", {
      organizationId: 102,
      mode: "additive",
      members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
    });
    const ada = res("OrgMember", "ada", { organizationId: 102, email: "ada@northwind.example" });
    expect(await validateStack(singleOwnershipLevel, [roster, ada])).toEqual([
      {
        urn: ada.urn,
        message: expect.stringContaining(
          'ada@northwind.example in organization 102 is managed by OrganizationMembers "legal" (additive roster) and OrgMember "ada" (one person)',
        ),
      },
    ]);
    expect(
      await validateStack(singleOwnershipLevel, [roster, res("OrgMember", "ada", { organizationId: 102, email: UNKNOWN_WIRE })]),
    ).toEqual([]);
  });

  it("invitation-expiry-horizon: an invitation expiring before the next run; unknown status is no violation", async () => {
    const soon = res("Invitation", "priya", {
      organizationId: 102,
      email: "priya@northwind.example",
      status: "pending",
      expiration: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    });
    expect(await validateStack(invitationExpiryHorizon, [soon])).toEqual([
      { urn: soon.urn, message: expect.stringContaining("before the next scheduled run (in 7 days, horizonDays)") },
    ]);
    expect(await validateStack(invitationExpiryHorizon, [soon], { horizonDays: 1 })).toEqual([]);
    expect(
      await validateStack(
        invitationExpiryHorizon,
        [res("Invitation", "x", { organizationId: 102, email: "x@northwind.example", status: UNKNOWN_WIRE, expiration: UNKNOWN_WIRE })],
        { horizonDays: 30 },
      ),
    ).toEqual([]);
  });

  it("external-access-expires: an external grant without an end date is refused, naming the resource and person", async () => {
    const cfg = { firmDomains: ["northwind.example"], userEmails: { "1009": "jane@lawfirm.example" } };
    const guest = res("DatabaseUserPermissions", "jane", { databaseId: 2001, userId: 1009, permissions: ["DB_UPLOAD"] });
    expect(await validateStack(externalAccessExpires, [guest], cfg)).toEqual([
      {
        urn: guest.urn,
        message: expect.stringMatching(
          /^DatabaseUserPermissions "jane" grants user 1009 \(jane@lawfirm\.example\) access to database 2001 without an end date: people outside the firm's domains \(northwind\.example\) get access for at most 90 days\. Fix: set expiresOn/,
        ),
      },
    ]);
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const dated = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1009": { permissions: ["DB_UPLOAD"], expiresOn: soon }, "1003": ["DB_ADMIN"] },
    });
    expect(
      await validateStack(externalAccessExpires, [dated], { ...cfg, userEmails: { ...cfg.userEmails, "1003": "alan@northwind.example" } }),
    ).toEqual([]);
    expect(await validateStack(externalAccessExpires, [guest], { ...cfg, domains: { "lawfirm.example": { required: false } } })).toEqual(
      [],
    );
    expect(await validateStack(externalAccessExpires, [guest], {})).toEqual([]);
  });

  it("every policy documents its remediation, config and enforcement level", () => {
    for (const p of policies as Policy[]) {
      expect(p.remediationSteps, p.name).toBeTruthy();
      expect(p.enforcementLevel, p.name).toMatch(/^(advisory|mandatory)$/);
      expect(p.url, p.name).toBe(`pulumi-reviewadmin/docs/policy.md#${p.name}`);
      const doc = fs.readFileSync(path.join(repoRoot, "docs/policy.md"), "utf8");
      expect(doc, p.name).toContain(`### ${p.name}`);
      for (const key of Object.keys(p.configSchema?.properties ?? {})) expect(doc, `${p.name}.${key}`).toContain(`\`${key}\``);
    }
  });
});
