/**
 * The access review's loop, to the end, in every style `export` writes (rosters additive and
 * authoritative, per person with and without retainOnDelete), under the real Pulumi CLI against
 * the emulator: export the seeded world, up (adopts, 0 writes), review, fill in review.csv's
 * decision column (one membership and one database grant removed), apply-signoff, `tsc --noEmit`
 * on the project, then `pulumi preview` names the two removals, `pulumi up` takes exactly those
 * two away from the live service, and a second up changes nothing. A "remove" gives the line an
 * end date (expiresOn), which the provider enforces even where deleting the line would not
 * (additive rosters, retainOnDelete). One emulator, the world reset per style.
 *
 * In the two retaining styles a later sign-off of the same packet also drops an expired
 * invitation, which the next up withdraws. Then, on the default style's stack: a person the code declares with no permissions is made
 * ORG_ADMIN in the web app, and the review judged against the stack's state names ORG_ADMIN as
 * not in code (per permission, not per scope).
 */
import { parse } from "csv-parse/sync";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { linkDependencies, repoRoot, writesIn } from "../../bench/exportedProject";
import type { RunResult } from "../../harness/runResult";
import { runCli } from "../cli/runCli";
import { control } from "../support/emulatorHttp";
import { worldOf } from "../support/exampleScenarios";
import { useProgramWorld } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";
import { ORDERED } from "../support/scenario";

const PROJECT = "signoff-loop";
const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const MARGARET = SEEDED.users.multiOrgMember;
const world = useProgramWorld(PROJECT);
const dir = programFolder("signoff-loop-");

/** Today (UTC): the emulator runs on real time, and apply-signoff's default sign-off day is today. */
const today = () => new Date().toISOString().slice(0, 10);

/** The CLI's options that reach the emulator with the world's org admin key (keys change on reset). */
function credentials(): string[] {
  const keyFile = path.join(dir, "key");
  fs.writeFileSync(keyFile, world.emu.keys.orgAdmin!);
  return ["--base-url", world.emu.url, "--api-key-file", keyFile, "--requests-per-second", "1000", "-q"];
}

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const r = await runCli(args);
  expect(r, `${args.slice(0, 2).join(" ")}: ${r.err}`).toMatchObject({ code: 0 });
  return r;
}

/** What a run sent to the emulator that writes, by operation. */
async function writesOf(run: () => Promise<RunResult>): Promise<{ result: RunResult; writes: Record<string, number> }> {
  world.emu.traffic.log.reset();
  const result = await run();
  return { result, writes: writesIn(world.emu.traffic.log.counters.byOperation) };
}

/** Who holds which access in a world: memberships, database permissions, invitations. */
const accessOf = ({ memberships, databaseUsers, invitations }: ReturnType<typeof worldOf>) => ({ memberships, databaseUsers, invitations });

const changedSteps = (r: RunResult) =>
  r.steps
    .filter((s) => s.op !== "same")
    .map((s) => `${s.op} ${s.name}`)
    .sort();

/** review.csv with a reviewer's decisions in its decision and justification columns; other rows left undecided. */
function signedOff(csv: string, decisions: [person: string, scope: string, decision: string, justification: string][]): string {
  const [header, ...rows] = parse(csv, { bom: true, relax_column_count: true }) as string[][];
  const col = (name: string) => header!.indexOf(name);
  for (const [person, scope, decision, why] of decisions) {
    const row = rows.find((r) => r[col("organization_id")] === String(ORG) && r[col("person")] === person && r[col("scope")] === scope);
    expect(row, `${person} on ${scope} in review.csv`).toBeDefined();
    expect(row![col("decision")]).toBe("");
    row![col("decision")] = decision;
    row![col("justification")] = why;
  }
  const cell = (c: string) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return [header!, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

/** Each style: its export options, and the steps its preview of the sign-off shows (the resources holding the two lines, updated). */
const ROSTERS = [`update database-${DB}`, `update organization-${ORG}`];
const PER_PERSON = [`update grant-${DB}-${MARGARET}`, `update member-${ORG}-alan@northwind.example`];
/** The two retaining styles also withdraw an expired invitation (a roster entry, an OrgMember): deleting its line would not. */
const STYLES: [string, string[], string[], { invitation?: boolean }][] = [
  ["rosters, additive (the default)", [], ROSTERS, { invitation: true }],
  ["rosters, authoritative", ["--mode", "authoritative"], ROSTERS, {}],
  ["per person, retainOnDelete", ["--style", "per-person"], PER_PERSON, { invitation: true }],
  ["per person, --no-retain", ["--style", "per-person", "--no-retain"], PER_PERSON, {}],
];

describe("a review's remove decisions end in removed access, in every style export writes", ORDERED, () => {
  it.each(STYLES)(
    "%s: export, up (0 writes), review, sign-off, tsc, preview names the removals, up removes exactly them, a second up changes nothing",
    async (_style, exportArgs, expectedSteps, also) => {
      const stack = world.freshStack();
      const project = fs.mkdtempSync(path.join(dir, "project-"));
      const packet = path.join(project, "access-review");
      const common = credentials();
      await cli(["export", ...common, "--out", project, "--force", "--project", PROJECT, ...exportArgs]);
      linkDependencies(project);
      const program = path.join(project, "index.ts");

      const adopted = await writesOf(() => stack.up(program));
      expect(adopted.writes).toEqual({});
      // Every resource created by adopting what is there (expired invitations adopted, not re-sent).
      expect([...new Set(adopted.result.steps.map((s) => s.op))]).toEqual(["create"]);
      expect(adopted.result.logs.map((l) => l.line).join("\n")).toMatch(/adopted/);
      await cli(["review", ...common, "--out", packet]);

      const signoff = path.join(packet, "review.csv");
      const template = fs.readFileSync(signoff, "utf8");
      fs.writeFileSync(
        signoff,
        signedOff(template, [
          ["alan@northwind.example", "organization", "remove", "left the firm"],
          ["margaret@northwind.example", `database ${DB}`, "remove", "matter closed"],
          ["ada@northwind.example", "organization", "keep", ""],
        ]),
      );
      const day = today();
      const applied = await cli([
        "review",
        "apply-signoff",
        "--signoff",
        signoff,
        "--packet",
        packet,
        "--access",
        path.join(project, "access.ts"),
      ]);
      expect(applied.out).toMatch(/2 removed, 0 changed, 1 kept; \d+ undecided\./);
      const access = fs.readFileSync(path.join(project, "access.ts"), "utf8");
      expect(access).toMatch(
        new RegExp(
          `\\{ email: "alan@northwind\\.example",[^\\n]*, expiresOn: "${day}" \\}, // removed by the access review of ${day}: left the firm\\n`,
        ),
      );
      expect(access).toContain(
        `          ${MARGARET}: { permissions: ["DB_UPLOAD"], expiresOn: "${day}" }, // Margaret Hamilton <margaret@northwind.example>; removed by the access review of ${day}: matter closed\n`,
      );

      const tsc = spawnSync(
        process.execPath,
        [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", path.join(project, "tsconfig.json"), "--noEmit"],
        { encoding: "utf8" },
      );
      expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe("");
      expect(tsc.status).toBe(0);

      const before = worldOf(world.emu);
      const preview = await writesOf(() => stack.preview(program));
      expect(preview.writes).toEqual({});
      expect(changedSteps(preview.result)).toEqual(expectedSteps);
      const said = preview.result.logs.map((l) => l.line).join("\n");
      // A roster names each removal on its own line ("- alan@...: AI_ADMIN (expired on <day>)"), a per-person resource in its warning.
      expect(said).toMatch(new RegExp(`alan@northwind\\.example\\b[^\\n]*expired on ${day}`));
      expect(said).toMatch(new RegExp(`user ${MARGARET}\\b[^\\n]*expired on ${day}`));

      // Remediation proved against the service: before the up both removals are still held (exit 1) ...
      const remediation = ["review", "verify-remediation", ...common.filter((a) => a !== "-q"), "--signoff", signoff, "--packet", packet];
      const pending = await runCli(remediation);
      expect(pending.code, pending.err).toBe(1);
      expect(pending.out).toMatch(/^2 removals of .* checked against the service at \S+: 0 gone, 2 not yet\.$/m);
      expect(pending.out).toContain("  not yet applied alan@northwind.example on organization");

      const up = await writesOf(() => stack.up(program));
      expect(up.writes).toEqual({ DeleteOrganizationUser: 1, DeleteDatabaseUser: 1 });
      // ... and after it both are gone, each with the service's time of the check, in remediation.json and the manifest.
      const proved = await cli(remediation);
      expect(proved.out).toMatch(/^2 removals of .* checked against the service at \S+: 2 gone, 0 not yet\.$/m);
      expect(proved.out).toContain(`  gone margaret@northwind.example on database ${DB}`);
      const manifest = JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8")) as { files: Record<string, unknown> };
      expect(Object.keys(manifest.files)).toContain("remediation.json");
      const report = JSON.parse(fs.readFileSync(path.join(packet, "remediation.json"), "utf8")) as { removals: { status: string }[] };
      expect(report.removals.map((x) => x.status)).toEqual(["gone", "gone"]);
      // Exactly the two lines of access went (removing a member also clears them from projects and their primary organization).
      const alan = world.emu.store.users.findByEmail("alan@northwind.example")!;
      const after = worldOf(world.emu);
      expect(accessOf(after)).toEqual({
        memberships: before.memberships.filter((m) => !(m.organizationId === ORG && m.userId === alan.id)),
        databaseUsers: before.databaseUsers.filter((g) => !(g.databaseId === DB && g.userId === MARGARET)),
        invitations: before.invitations,
      });

      const again = await writesOf(() => stack.up(program, { expectNoChanges: true }));
      expect(again.writes).toEqual({});
      expect(changedSteps(again.result)).toEqual([]);
      expect(worldOf(world.emu)).toEqual(after);

      if (!also.invitation) return;
      // An expired invitation dropped by a later sign-off of the same packet: an end date on its line, and the next up withdraws it.
      fs.writeFileSync(signoff, signedOff(template, [["late.joiner@northwind.example", "organization", "remove", "never joined"]]));
      await cli(["review", "apply-signoff", "--signoff", signoff, "--packet", packet, "--access", path.join(project, "access.ts")]);
      const dropped = await writesOf(() => stack.up(program));
      expect(dropped.writes).toEqual({ DeleteOrganizationInvitation: 1 });
      expect(accessOf(worldOf(world.emu))).toEqual({
        ...accessOf(after),
        invitations: after.invitations.filter((i) => i.email !== SEEDED.invitations.expired),
      });

      if (exportArgs.length > 0) return;
      // The default style's stack, judged per permission: Grace is declared with permissions [] and made ORG_ADMIN in the web app.
      const grace = world.emu.store.users.findByEmail("grace@northwind.example")!;
      const made = await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${grace.id}`, { permissions: ["ORG_ADMIN"] });
      expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
      const state = path.join(project, "state.json");
      const exported = await stack.cli(["stack", "export", "--file", state]);
      expect(exported.code, exported.stderr).toBe(0);
      const judged = path.join(project, "judged");
      await cli(["review", ...credentials(), "--out", judged, "--stack-state", state]);
      const people = JSON.parse(fs.readFileSync(path.join(judged, "review.json"), "utf8")).organizations[0].people;
      const person = (key: string) => people.find((p: { key: string }) => p.key === key);
      expect(person("grace@northwind.example").inCode.lines).toEqual([
        { scope: "organization", declaredBy: [`OrganizationMembers "organization-${ORG}"`], notInCode: ["ORG_ADMIN"] },
      ]);
      expect(person("grace@northwind.example").flags).toEqual(expect.arrayContaining(["privileged", "not-in-code"]));
      // Ada holds what the code declares (ORG_ADMIN): declared, nothing beyond it.
      expect(person("ada@northwind.example").inCode.lines).toEqual([
        { scope: "organization", declaredBy: [`OrganizationMembers "organization-${ORG}"`] },
      ]);
      expect(person("ada@northwind.example").flags).not.toContain("not-in-code");
      const row = fs
        .readFileSync(path.join(judged, "review.csv"), "utf8")
        .split("\r\n")
        .find((r) => r.includes(",grace@northwind.example,"));
      expect(row).toMatch(new RegExp(`,"OrganizationMembers ""organization-${ORG}""",,ORG_ADMIN,,,,$`));
      expect(fs.readFileSync(path.join(judged, "review.md"), "utf8")).toContain(
        `organization: declared by the organization's roster "organization-${ORG}" (OrganizationMembers); ORG_ADMIN not in code`,
      );
    },
    300_000,
  );
});
