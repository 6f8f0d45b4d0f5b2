/**
 * The policy pack on whole programs, as users run it: `pulumi preview --policy-pack policy` (and
 * `pulumi up --policy-pack`) by the real engine, which starts the pack and hands it each resource
 * (Analyze) and the stack (AnalyzeStack). The examples pass it, with the default config and with
 * the example's policy-config.json; a deliberately bad program is reported with the expected
 * messages, and fails the preview.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as automation from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, it } from "vitest";
import { EngineStack } from "../../harness/engineStack";
import { RunError } from "../../harness/runResult";
import { skipWithoutEngine } from "../support/engine";
import { policyEmulator } from "../policy/emulator";

const repoRoot = path.resolve(__dirname, "../..");
const packDir = path.join(repoRoot, "policy");
const badProgram = path.join(__dirname, "../policy/fixtures/bad-access/index.ts");
/** The config a firm would use with the access-baseline example (docs/policy.md shows it). */
const exampleConfigFile = path.join(repoRoot, "examples/access-baseline/policy-config.json");

skipWithoutEngine("test/engine/policyPrograms.test.ts");

const line = (e: automation.PolicyEvent) => `${e.enforcementLevel} ${e.policyName} ${e.resourceUrn?.split("::").at(-1) ?? ""}`;
const stacks: EngineStack[] = [];
afterAll(async () => {
  for (const s of stacks) await s.close();
});

/** A stack of the program file on a fresh seeded emulator, with the program's own config. */
async function stackOf(program: string, project: string, config: Record<string, string>) {
  const emu = await policyEmulator();
  const stack = new EngineStack({
    project,
    stack: "policy",
    config: { ...emu.config, ...config },
    secretConfigKeys: ["reviewadmin:apiKey"],
  });
  stacks.push(stack);
  return { stack, program, close: () => emu.close() };
}

const withPack = (config?: string) => ({ policyPacks: [packDir], policyPackConfigs: config ? [config] : undefined });

describe("the examples pass the pack", () => {
  const examples: [string, Record<string, string>][] = [
    ["access-baseline", { "access-baseline:organizationId": "102" }],
    ["access-review", { "access-review:reportPath": path.join(repoRoot, "examples/access-review/access-review.md") }],
    ["custodian-sync", {}],
  ];

  it.each(examples)(
    "%s: pulumi preview and pulumi up with --policy-pack, with the default config and with the example's policy-config.json",
    async (example, config) => {
      const { stack, program, close } = await stackOf(path.join(repoRoot, "examples", example, "index.ts"), example, config);
      try {
        for (const packConfig of [undefined, exampleConfigFile]) {
          const preview = await stack.preview(program, withPack(packConfig));
          expect(preview.policy.map(line), `preview of ${example}`).toEqual([]);
        }
        // After the up, the stack policies read outputs (live rosters, statuses, expirations).
        for (const packConfig of [exampleConfigFile, undefined]) {
          const up = await stack.up(program, withPack(packConfig));
          expect(up.policy.map(line), `up of ${example}`).toEqual([]);
        }
      } finally {
        await close();
      }
    },
    300_000,
  );
});

describe("a deliberately bad program is reported", () => {
  it("an external org admin, a person in a roster and as an OrgMember, a database left without an admin: the preview fails", async () => {
    const { stack, program, close } = await stackOf(badProgram, "bad-access", {});
    try {
      const failed = await stack.preview(program, withPack(exampleConfigFile)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(RunError);
      const events = (failed as RunError & { result: { policy: automation.PolicyEvent[] } }).result.policy;
      expect(events.map(line).sort()).toEqual(
        [
          "mandatory org-permissions-allowed-domains mallory",
          "mandatory members-allowed-domains mallory",
          "mandatory database-admin-present nvc-users",
          "mandatory single-ownership-level alan",
        ].sort(),
      );
      const message = (policy: string) =>
        events
          .find((d) => d.policyName === policy)!
          .message.trim()
          .split("\n")
          .at(-1);
      expect(message("org-permissions-allowed-domains")).toBe(
        'OrgMember "mallory": mallory@contoso.example would hold ORG_ADMIN in organization 102, but organization permissions are only for people of the allowed domains (northwind.example). ' +
          "Fix: remove the permissions from mallory@contoso.example, or add contoso.example to allowedDomains in the policy config.",
      );
      expect(message("members-allowed-domains")).toBe(
        'OrgMember "mallory" adds (or, without an account, invites) mallory@contoso.example to organization 102, but only people of the allowed domains (northwind.example) and listed external reviewers may join. ' +
          "Fix: remove mallory@contoso.example from the program, or list them (or contoso.example) in externalReviewers in the policy config.",
      );
      expect(message("database-admin-present")).toBe(
        'database 2001 would have no DB_ADMIN among what the stack declares (DatabaseUsers "nvc-users": user 1003 DB_UPLOAD, user 1005 DB_LEGAL_HOLD). ' +
          'Fix: grant DB_ADMIN to at least one user in DatabaseUsers "nvc-users" (or protect an admin\'s user id in protectedUserIds and grant it there).',
      );
      expect(message("single-ownership-level")).toBe(
        'alan@northwind.example in organization 102 is managed by OrganizationMembers "legal" (additive roster) and OrgMember "alan" (one person): resources at two ownership levels (or twice at one) undo each other\'s changes on every run. ' +
          "Fix: keep alan@northwind.example in one of them and remove them from the other.",
      );
      // The URN of each violation is the resource's.
      expect(events.find((d) => d.policyName === "single-ownership-level")!.resourceUrn).toBe(
        "urn:pulumi:policy::bad-access::pulumi-nodejs:dynamic/reviewadmin:OrgMember::alan",
      );

      // With the default config, the domain rules are off; the rest stays.
      const defaults = await stack.preview(program, withPack()).then(
        () => [],
        (e: unknown) => (e as RunError & { result: { policy: automation.PolicyEvent[] } }).result.policy,
      );
      expect(defaults.map(line).sort()).toEqual(["mandatory database-admin-present nvc-users", "mandatory single-ownership-level alan"]);
    } finally {
      await close();
    }
  }, 300_000);
});

describe("the plugin face's resources are read alike", () => {
  it("the bad program written against the reviewadmin plugin: the same four violations, on the plugin's type tokens", async () => {
    const emu = await policyEmulator();
    const stack = new EngineStack({
      project: "bad-access-plugin",
      stack: "policy",
      config: emu.config,
      secretConfigKeys: ["reviewadmin:apiKey"],
      env: { PATH: `${path.join(repoRoot, "plugin")}${path.delimiter}${process.env.PATH}` },
    });
    stacks.push(stack);
    /** A resource by type token, as a generated SDK registers it. */
    class Raw extends pulumi.CustomResource {
      constructor(kind: string, name: string, props: Record<string, unknown>) {
        super(`reviewadmin:index:${kind}`, name, props);
      }
    }
    const program = () => {
      new Raw("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "additive",
        members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] }, "alan@northwind.example": { permissions: [] } },
      });
      new Raw("OrgMember", "alan", { organizationId: 102, email: "Alan@Northwind.example", permissions: ["AI_ADMIN"] });
      new Raw("OrgMember", "mallory", { organizationId: 102, email: "mallory@contoso.example", permissions: ["ORG_ADMIN"] });
      new Raw("DatabaseUsers", "nvc-users", {
        databaseId: 2001,
        mode: "authoritative",
        users: { "1003": ["DB_UPLOAD"], "1005": ["DB_LEGAL_HOLD"] },
      });
    };
    try {
      const failed = await stack.preview(program, withPack(exampleConfigFile)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(RunError);
      const events = (failed as RunError & { result: { policy: automation.PolicyEvent[] } }).result.policy;
      expect(events.map(line).sort()).toEqual(
        [
          "mandatory org-permissions-allowed-domains mallory",
          "mandatory members-allowed-domains mallory",
          "mandatory database-admin-present nvc-users",
          "mandatory single-ownership-level alan",
        ].sort(),
      );
      expect(events.find((d) => d.policyName === "single-ownership-level")!.resourceUrn).toBe(
        "urn:pulumi:policy::bad-access-plugin::reviewadmin:index:OrgMember::alan",
      );
    } finally {
      await emu.close();
    }
  }, 300_000);
});
