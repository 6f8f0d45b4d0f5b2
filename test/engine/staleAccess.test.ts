/**
 * Stale privileged access at preview, under the real engine (issue 27): a program exporting
 * getStalePrivilegedPeopleOutput as a stack output, previewed with the pack, gets an advisory
 * stale-privileged-access finding on the roster that grants a stale person a privilege, and one
 * for the stack per stale person it does not declare; a person's activity in the web app clears
 * theirs, the exempt list silences one, and the preview goes on (advisory).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";
import { programFolder, repoRoot } from "../support/providerWorld";

const ORG = SEEDED.org;
const U = SEEDED.users;
const world = useProgramWorld("stale-access");
const pack = path.join(repoRoot, "policy");

const program = () => {
  new reviewadmin.OrganizationMembers("org", {
    organizationId: ORG,
    mode: "additive",
    onUnmanaged: "report",
    members: { "frances@northwind.example": { permissions: ["LEGAL_HOLD_ADMIN"] } },
  });
  return { stalePrivilegedPeople: reviewadmin.getStalePrivilegedPeopleOutput({ organizationId: ORG, staleDays: 1 }) };
};

function packConfig(config: object): string {
  const file = path.join(programFolder("stale-access-config-"), "policy-config.json");
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

describe("the policy pack's stale-privileged-access rule at preview", () => {
  it("flags the roster granting a stale person a privilege and, on the stack, the stale people the code does not declare", async () => {
    const s = world.freshStack();
    // Two quiet days: nobody has acted in the last one.
    expect((await control(world.emu.url, "POST", "/clock", { advanceDays: 2 })).status).toBe(200);
    const up = await s.up(program);
    const day = new Date(world.emu.store.clock.now()).toISOString().slice(0, 10);

    const preview = await s.preview(program, { policyPacks: [pack] });
    const stale = preview.policy.filter((p) => p.policyName === "stale-privileged-access");
    // Advisory: printed, and the preview went on (the type says "warning"; the engine sends "advisory").
    expect(stale.map((p) => String(p.enforcementLevel))).toEqual(stale.map(() => "advisory"));
    const roster = s.find("org")!;
    const lastLine = (m: string) => m.trim().split("\n").at(-1);
    const window = `no activity in organization ${ORG}'s log in the 1 day to ${day} (stack output stalePrivilegedPeople)`;
    expect(stale.filter((p) => p.resourceUrn === roster.urn).map((p) => lastLine(p.message))).toEqual([
      `OrganizationMembers "org" grants frances@northwind.example (user ${U.legalHoldAdmin}) LEGAL_HOLD_ADMIN, and frances@northwind.example (user ${U.legalHoldAdmin}) has had ${window}. ` +
        `Fix: take the privilege away if it is no longer needed, or list frances@northwind.example in the policy's exempt config if it must stay (a break-glass account).`,
    ]);
    // The stack-level ones: exactly the stale people of the exported answer, less Frances.
    const answer = up.outputs.stalePrivilegedPeople as reviewadmin.StalePrivilegedPeople;
    const onStack = stale.filter((p) => p.resourceUrn?.includes("::pulumi:pulumi:Stack::")).map((p) => lastLine(p.message)!);
    expect(onStack.map((m) => m.split(" ")[0]).sort()).toEqual(
      answer.stale
        .map((p) => p.email)
        .filter((e) => e !== "frances@northwind.example")
        .sort(),
    );
    expect(onStack).toContain(
      `ada@northwind.example (user ${U.orgAdmin}) holds ORG_ADMIN outside this stack's code, and has had ${window}. ` +
        "Fix: take the privilege away (in the web app, or by declaring the person in the program), or list ada@northwind.example in the policy's exempt config.",
    );

    // Frances acts in the web app; Ada is exempt (a break-glass account): neither is flagged now.
    const acted = await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${U.member}`, {
      permissions: [],
      actingUserId: U.legalHoldAdmin,
    });
    expect(acted.status).toBe(200);
    const config = packConfig({ "stale-privileged-access": { exempt: ["Ada@northwind.example"] } });
    const again = await s.preview(program, { policyPacks: [pack], policyPackConfigs: [config] });
    const messages = again.policy.filter((p) => p.policyName === "stale-privileged-access").map((p) => p.message);
    expect(messages.length).toBe(stale.length - 2);
    expect(messages.join("\n")).not.toMatch(/frances@|ada@/);
  });

  it("says nothing when the stack exports no answer", async () => {
    const s = world.freshStack();
    const bare = () => {
      program();
    };
    const preview = await s.preview(bare, { policyPacks: [pack] });
    expect(preview.policy.filter((p) => p.policyName === "stale-privileged-access")).toEqual([]);
  });
});
