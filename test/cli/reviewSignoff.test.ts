/**
 * `pulumi-reviewadmin review apply-signoff` (issue 27): a reviewer's sign-off, checked against the
 * packet, becomes the change of the exported access.ts; under the real engine, the exported
 * project (per person, no retainOnDelete) adopted by a first up previews exactly the two removals
 * the sign-off decided, and the preview changes nothing in the world. Wrong sign-offs write nothing.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { installFromTarball, writesIn } from "../../bench/exportedProject";
import { noEngine } from "../support/engine";
import { worldOf } from "../support/exampleScenarios";
import { runCli } from "./runCli";

let emu: RunningEmulator;
let tmp: string;
let keyFile: string;
let project: string;
let packet: string;

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-signoff-"));
  keyFile = path.join(tmp, "key");
  fs.writeFileSync(keyFile, emu.keys.orgAdmin!);
  const common = ["--base-url", emu.url, "--api-key-file", keyFile, "--requests-per-second", "1000", "-q"];
  project = path.join(tmp, "access");
  packet = path.join(tmp, "packet");
  expect(
    await runCli(["export", ...common, "--out", project, "--style", "per-person", "--no-retain", "--project", "signoff"]),
  ).toMatchObject({ code: 0 });
  expect(await runCli(["review", ...common, "--out", packet])).toMatchObject({ code: 0 });
});
afterAll(async () => {
  await emu?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const accessTs = () => fs.readFileSync(path.join(project, "access.ts"), "utf8");

function signoff(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

const apply = (file: string, ...more: string[]) =>
  runCli(["review", "apply-signoff", "--signoff", file, "--packet", packet, "--access", path.join(project, "access.ts"), ...more]);

const TWO_REMOVALS = [
  "email,scope,decision,permissions",
  "alan@northwind.example,organization,remove,",
  "ken@northwind.example,organization,remove,",
  "ada@northwind.example,organization,keep,",
  "margaret@northwind.example,Northwind v. Contoso,keep,",
].join("\r\n");

describe("review apply-signoff: refusals write nothing", () => {
  it.each([
    [
      "unknown.csv",
      "email,scope,decision\nnobody@northwind.example,organization,remove\n",
      "unknown.csv row 2: nobody@northwind.example is not in the packet",
    ],
    [
      "decision.csv",
      "email,scope,decision\nalan@northwind.example,organization,delete\n",
      "decision must be keep, remove or change, got 'delete'",
    ],
    [
      "perm.csv",
      "email,scope,decision,permissions\nmargaret@northwind.example,2001,change,ORG_ADMIN\n",
      "permissions must be of DB_ADMIN, DB_UPLOAD, DB_DELETE, DB_LEGAL_HOLD on database 2001",
    ],
    [
      "scope.csv",
      "email,scope,decision\nalan@northwind.example,2001,remove\n",
      "scope must be one where alan@northwind.example has access in the packet (organization)",
    ],
    [
      "twice.json",
      JSON.stringify([
        { email: "alan@northwind.example", scope: "organization", decision: "remove" },
        { email: "alan@northwind.example", scope: "organization", decision: "keep" },
      ]),
      "a second decision for alan@northwind.example",
    ],
    ["header.csv", "who,what\nx,y\n", "needs a header row with email, scope, decision"],
  ])("%s", async (name, text, message) => {
    const before = accessTs();
    const r = await apply(signoff(name, text));
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain("(see pulumi-reviewadmin review apply-signoff --help)");
    expect(accessTs()).toBe(before);
  });

  it("refuses an access file that disagrees with the packet", async () => {
    const other = path.join(tmp, "other-access.ts");
    fs.writeFileSync(other, accessTs().replace(/(\{ email: "ken@northwind\.example"[^\n]*permissions: )\[[^\]]*\]/, '$1["ORG_ADMIN"]'));
    const r = await runCli([
      "review",
      "apply-signoff",
      "--signoff",
      signoff("disagree.csv", TWO_REMOVALS),
      "--packet",
      packet,
      "--access",
      other,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the access file gives ken@northwind.example ["ORG_ADMIN"] on organization, the packet ["AI_ADMIN"]');
  });

  it("scope all removes every line of a person's access (membership and grants)", async () => {
    const before = accessTs();
    const r = await apply(signoff("all.csv", "email,scope,decision\nmargaret@northwind.example,all,remove\n"), "--check");
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(r.out).toContain("2 removed, 0 changed, 0 kept");
    expect(r.out).toContain("remove margaret@northwind.example on organization of organization 102");
    expect(r.out).toContain("remove margaret@northwind.example on database 2001 of organization 102");
    expect(accessTs()).toBe(before);
    const change = await apply(
      signoff("allchange.csv", "email,scope,decision,permissions\nmargaret@northwind.example,all,change,DB_UPLOAD\n"),
    );
    expect(change.code).toBe(2);
    expect(change.err).toContain("scope all takes keep or remove");
  });

  it("--check prints the change and writes nothing; --help is there", async () => {
    const before = accessTs();
    const r = await apply(signoff("check.csv", TWO_REMOVALS), "--check");
    expect(r).toMatchObject({ code: 0 });
    expect(r.out).toContain("Would apply 4 decisions");
    expect(accessTs()).toBe(before);
    const help = await runCli(["review", "apply-signoff", "--help"]);
    expect(help.out).toContain("Usage: pulumi-reviewadmin review apply-signoff [options]");
    expect(help.out).toContain("--signoff FILE");
  });
});

// Previewing the signed-off program needs the Pulumi CLI; without it (no Go to build it) the
// engine test skips, and test/support/engine.ts says why (CI requires the CLI and never skips).
const engineIt = it.skipIf(!!noEngine);

describe("review apply-signoff: the change a pull request proposes", () => {
  it("removes exactly the two lines, and changes a grant's permissions in place", async () => {
    const copy = path.join(tmp, "copy-access.ts");
    const before = accessTs();
    fs.writeFileSync(copy, before);
    const file = signoff(
      "change.json",
      JSON.stringify({
        decisions: [
          { email: "margaret@northwind.example", scope: "database 2001", decision: "change", permissions: ["DB_UPLOAD", "DB_LEGAL_HOLD"] },
        ],
      }),
    );
    const r = await runCli(["review", "apply-signoff", "--signoff", file, "--packet", packet, "--access", copy]);
    expect(r, r.err).toMatchObject({ code: 0 });
    const changed = fs.readFileSync(copy, "utf8").split("\n");
    const orig = before.split("\n");
    const diff = changed.filter((l, i) => l !== orig[i]);
    expect(diff).toEqual([expect.stringMatching(/^ {10}1007: \["DB_LEGAL_HOLD", "DB_UPLOAD"\], \/\/ Margaret Hamilton/)]);
  });

  engineIt(
    "a sign-off removing two people becomes a change whose pulumi preview shows exactly those two removals",
    async () => {
      installFromTarball(project);
      const stack = new EngineStack({
        project: "signoff",
        stack: "dev",
        config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin!, "reviewadmin:requestsPerSecond": "1000" },
        secretConfigKeys: ["reviewadmin:apiKey"],
      });
      const original = accessTs();
      try {
        const program = path.join(project, "index.ts");
        const adopted = await stack.up(program);
        expect([...new Set(adopted.steps.map((s) => s.op))]).toEqual(["create"]);

        const before = accessTs();
        const r = await apply(signoff("two.csv", TWO_REMOVALS));
        expect(r, r.err).toMatchObject({ code: 0 });
        expect(r.out).toContain("2 removed, 0 changed, 2 kept");
        const gone = before.split("\n").filter((l) => !accessTs().split("\n").includes(l));
        expect(gone).toEqual([
          expect.stringContaining('{ email: "alan@northwind.example"'),
          expect.stringContaining('{ email: "ken@northwind.example"'),
        ]);

        const world = worldOf(emu);
        emu.traffic.log.reset();
        const preview = await stack.preview(program);
        const changes = preview.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`);
        expect(changes.sort()).toEqual([
          `delete member-${SEEDED.org}-alan@northwind.example`,
          `delete member-${SEEDED.org}-ken@northwind.example`,
        ]);
        expect(writesIn(emu.traffic.log.counters.byOperation)).toEqual({});
        expect(worldOf(emu)).toEqual(world);
      } finally {
        await stack.close();
        // The other tests read the exported file as it was.
        fs.writeFileSync(path.join(project, "access.ts"), original);
      }
    },
    240_000,
  );
});
