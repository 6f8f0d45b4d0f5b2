/**
 * The policy pack on whole programs: the examples pass it, and a deliberately bad program is
 * reported with the expected messages.
 *
 * Each program runs through the bundled harness (test/policy/harnessAdapter.ts: the real
 * dynamic-provider plugin, a fresh seeded emulator) as `pulumi preview` on a new stack (planned
 * inputs, preview unknowns included) and, for the examples, as `pulumi up` (checked inputs, then
 * outputs). The resources are handed to the pack in its own process, as the engine does
 * (Analyze per resource, then AnalyzeStack: test/policy/analyzer.ts).
 *
 * Where the Pulumi CLI is installed, the last block runs `pulumi preview --policy-pack` itself.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as automation from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasPulumiCli } from "../../harness/stacks";
import { PolicyPackProcess, type Diagnostic, type PackConfig } from "./analyzer";
import { UNKNOWN_WIRE } from "./fixtures";
import { policyEmulator, PolicyProgramStack } from "./harnessAdapter";

const repoRoot = path.resolve(__dirname, "../..");
const packDir = path.join(repoRoot, "policy");
const badProgram = path.join(__dirname, "fixtures/bad-access");
/** The config a firm would use with the access-baseline example (docs/policy.md shows it). */
const exampleConfigFile = path.join(repoRoot, "examples/access-baseline/policy-config.json");
const exampleConfig = JSON.parse(fs.readFileSync(exampleConfigFile, "utf8")) as PackConfig;

const line = (d: Diagnostic) => `${d.enforcementLevel} ${d.policyName} ${d.urn.split("::").at(-1)}`;

let pack: PolicyPackProcess;
beforeAll(async () => {
  if (!fs.existsSync(path.join(repoRoot, "dist/policy/index.js")))
    throw new Error("dist/policy/index.js is missing: run `npm run build` first (npm test does)");
  pack = await PolicyPackProcess.start(packDir);
});
afterAll(() => pack?.close());

describe("the examples pass the pack", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "policy-examples-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const examples: [string, Record<string, string>][] = [
    ["access-baseline", { "access-baseline:organizationId": "102" }],
    ["access-review", { "access-review:reportPath": path.join(tmp, "access-review.md") }],
    ["custodian-sync", {}],
  ];

  it.each(examples)("%s: preview and up, with the default config and with the example's policy-config.json", async (example, config) => {
    const stack = await PolicyProgramStack.create(path.join(repoRoot, "examples", example), example, config);
    try {
      const preview = await stack.preview();
      const up = await stack.up();
      if (example === "access-baseline") {
        // A real first preview: database grants wait for the roster's user ids.
        expect(preview.inputs.map((r) => r.name).sort()).toEqual([
          "frances-db2001",
          "invite-priya",
          "ken-db2001",
          "linus-db2001",
          "members",
        ]);
        expect(preview.inputs.filter((r) => r.props.userId === UNKNOWN_WIRE).map((r) => r.name)).toEqual([
          "frances-db2001",
          "ken-db2001",
          "linus-db2001",
        ]);
        // After the up, the stack policies read outputs (live rosters, statuses, expirations).
        expect(up.stack.find((r) => r.name === "members")!.props).toHaveProperty("managed");
        expect(up.stack.find((r) => r.name === "invite-priya")!.props).toMatchObject({ status: "pending" });
      }
      for (const config of [{}, exampleConfig]) {
        await pack.configure(config);
        expect((await pack.run(preview.inputs, preview.stack)).map(line), `preview of ${example}`).toEqual([]);
        expect((await pack.run(up.inputs, up.stack)).map(line), `up of ${example}`).toEqual([]);
      }
    } finally {
      await stack.close();
    }
  });
});

describe("a deliberately bad program is reported", () => {
  it("an external org admin, a person in a roster and as an OrgMember, a database left without an admin", async () => {
    const stack = await PolicyProgramStack.create(badProgram, "bad-access");
    try {
      const preview = await stack.preview();
      // The grant whose user id comes from the roster is unknown: it must add nothing.
      expect(preview.inputs.find((r) => r.name === "ada-db2003")!.props.userId).toBe(UNKNOWN_WIRE);

      await pack.configure(exampleConfig);
      const ds = await pack.run(preview.inputs, preview.stack);
      expect(ds.map(line)).toEqual([
        "mandatory org-permissions-allowed-domains mallory",
        "mandatory members-allowed-domains mallory",
        "mandatory database-admin-present nvc-users",
        "mandatory single-ownership-level alan",
      ]);
      const message = (policy: string) =>
        ds
          .find((d) => d.policyName === policy)!
          .message.split("\n")
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
      expect(ds.find((d) => d.policyName === "single-ownership-level")!.urn).toBe(
        "urn:pulumi:policy::bad-access::pulumi-nodejs:dynamic/reviewadmin:OrgMember::alan",
      );

      // With the default config, the domain rules are off; the rest stays.
      await pack.configure({});
      expect((await pack.run(preview.inputs, preview.stack)).map(line)).toEqual([
        "mandatory database-admin-present nvc-users",
        "mandatory single-ownership-level alan",
      ]);
    } finally {
      await stack.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The real CLI

const hasCli = hasPulumiCli();
const SKIP_REASON =
  "the Pulumi CLI is not installed on this machine; this test runs `pulumi preview --policy-pack policy` on an example and on the bad program when it is";
if (!hasCli) console.info(`test/policy/programs.test.ts (pulumi preview --policy-pack) skipped: ${SKIP_REASON}`);

/** `pulumi preview --policy-pack policy --policy-pack-config <file>` of a program, through the Automation API. */
async function cliPreview(
  programDir: string,
  project: string,
  config: Record<string, string>,
): Promise<{ ok: boolean; events: automation.PolicyEvent[]; error?: string }> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "policy-cli-"));
  try {
    fs.mkdirSync(path.join(tmp, "backend"));
    fs.mkdirSync(path.join(tmp, "project"));
    const stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName: "policy", workDir: path.join(tmp, "project") },
      {
        envVars: {
          PULUMI_BACKEND_URL: `file://${path.join(tmp, "backend")}`,
          PULUMI_CONFIG_PASSPHRASE: "policy-test",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_NODEJS_TRANSPILE_ONLY: "true",
        },
        projectSettings: {
          name: project,
          runtime: { name: "nodejs", options: { typescript: true } },
          main: path.join(programDir, "index.ts"),
        },
      },
    );
    await stack.setAllConfig(
      Object.fromEntries(Object.entries(config).map(([k, value]) => [k, { value, secret: k === "reviewadmin:apiKey" }])),
    );
    const events: automation.PolicyEvent[] = [];
    try {
      await stack.preview({
        policyPacks: [packDir],
        policyPackConfigs: [exampleConfigFile],
        color: "never",
        onEvent: (e) => e.policyEvent && events.push(e.policyEvent),
      });
      return { ok: true, events };
    } catch (e) {
      return { ok: false, events, error: String(e) };
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe("pulumi preview --policy-pack with the Pulumi CLI", () => {
  // Skipped when the Pulumi CLI is not installed (SKIP_REASON, printed above): only the real CLI
  // loads a policy pack; the tests above run the same policies through the harness.
  it.skipIf(!hasCli)(
    "access-baseline passes; the bad program fails on the mandatory violations",
    async () => {
      const emu = await policyEmulator();
      try {
        const good = await cliPreview(path.join(repoRoot, "examples/access-baseline"), "access-baseline", {
          ...emu.config,
          "access-baseline:organizationId": "102",
        });
        expect(good.events).toEqual([]);
        expect(good.ok, good.error).toBe(true);

        const bad = await cliPreview(badProgram, "bad-access", emu.config);
        expect(bad.ok).toBe(false);
        expect(bad.events.map((e) => `${e.enforcementLevel} ${e.policyName} ${e.resourceUrn?.split("::").at(-1) ?? ""}`).sort()).toEqual(
          [
            "mandatory org-permissions-allowed-domains mallory",
            "mandatory members-allowed-domains mallory",
            "mandatory database-admin-present nvc-users",
            "mandatory single-ownership-level alan",
          ].sort(),
        );
        expect(bad.events.find((e) => e.policyName === "single-ownership-level")!.message).toContain(
          'is managed by OrganizationMembers "legal" (additive roster) and OrgMember "alan" (one person)',
        );
      } finally {
        await emu.close();
      }
    },
    300_000,
  );
});
