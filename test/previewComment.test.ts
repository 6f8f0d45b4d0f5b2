/**
 * preview.yml's comment step at sizes the engine test does not reach: its `run:` script, read from
 * the workflow file, run in bash (as a runner runs it) on a preview's output as the Pulumi CLI
 * prints it (the lines' shapes are those test/engine/gitops.test.ts's real preview prints), with
 * a `gh` stub keeping the comment. At 1,000 databases the comment is the change's few lines; a
 * change of thousands of people is cut from the front to GitHub's limit, keeping the summary. No
 * Pulumi CLI needed: bash, grep, tail and sed only.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../bench/exportedProject";
import { runCommand } from "./support/actionStandIn";
import { writeGhStub } from "./support/ghStub";
import { readWorkflow } from "./support/workflowFile";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-preview-comment-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const DB = "pulumi-nodejs:dynamic/reviewadmin:DatabaseUsers";
const ROSTER = "pulumi-nodejs:dynamic/reviewadmin:OrganizationMembers organization-102";

/** What `pulumi preview --refresh --color never` prints for a stack of `databases` unchanged databases and one roster where `people` change. */
function previewOutput(databases: number, people: string[]): string {
  const ids = Array.from({ length: databases }, (_, i) => 3000 + i);
  return [
    "Previewing update (prod):",
    "Loading policy packs...: starting",
    "Loading policy packs...: done",
    "",
    "@ previewing update....",
    " ~  pulumi:pulumi:Stack access-prod refreshing ",
    ` ~  ${ROSTER} refreshing `,
    ...ids.flatMap((id) => [` ~  ${DB} database-${id} refreshing `, ` ~  ${DB} database-${id} refresh `]),
    ` ~  ${ROSTER} refresh [diff: ~members]`,
    "@ previewing update......",
    "    pulumi:pulumi:Stack access-prod running ",
    ` ~  ${ROSTER} update [diff: ~members]; OrganizationMembers of organization 102: ${people.length} people change`,
    ...ids.map((id) => `    ${DB} database-${id}  `),
    "    pulumi:pulumi:Stack access-prod  ",
    "Policies:",
    "    ✅ reviewadmin-access-guardrails@v0.2.0 (local: node_modules/pulumi-reviewadmin/policy)",
    "",
    "Diagnostics:",
    "  pulumi-nodejs:dynamic/reviewadmin:OrganizationMembers (organization-102):",
    `    OrganizationMembers of organization 102: ${people.length} people change`,
    ...people.map((p) => `      + ${p}: AI_ADMIN, until 2027-01-31`),
    "",
    "Resources:",
    "    ~ 1 to update",
    `    ${databases + 1} unchanged`,
    "",
  ].join("\n");
}

let runs = 0;
/** Runs preview.yml's comment step on `output` (the preview step's file); returns the comment it posted and the gh call. */
async function comment(output: string): Promise<{ body: string; call: string[] }> {
  const step = Object.values(readWorkflow(path.join(repoRoot, "examples", "gitops", "preview.yml")).jobs)[0]!.steps.find(
    (s) => s.name === "Comment the preview on the pull request",
  )!;
  const dir = path.join(tmp, `run-${++runs}`);
  const gh = writeGhStub(path.join(dir, "gh"));
  fs.writeFileSync(path.join(dir, "preview.txt"), output);
  fs.writeFileSync(path.join(dir, "step.sh"), step.run!);
  const r = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", path.join(dir, "step.sh")], {
    cwd: dir,
    env: { PATH: `${gh.bin}:/usr/bin:/bin`, RUNNER_TEMP: dir, PR: "7", GH_TOKEN: "ghs_token", LANG: "C.UTF-8" },
  });
  expect(r.code, r.output).toBe(0);
  return { body: gh.bodies().at(-1)!, call: gh.calls().at(-1)! };
}

describe("preview.yml's comment step", () => {
  it("at 1,000 databases: the change's lines only, whatever the number of databases", async () => {
    const people = ["joan.newcomer@northwind.example", "alan@northwind.example"];
    const output = previewOutput(1000, people);
    expect(output.length).toBeGreaterThan(65_536); // what the action would have commented
    const { body, call } = await comment(output);
    expect(call.slice(0, 6)).toEqual(["pr", "comment", "7", "--edit-last", "--create-if-none", "--body-file"]);
    expect(body.split("\n").length).toBeLessThan(100);
    expect(body.length).toBeLessThan(10_000);
    expect(body).not.toMatch(/database-\d+/);
    for (const p of people) expect(body).toContain(`+ ${p}: AI_ADMIN`);
    expect(body).toContain(`${ROSTER} update [diff: ~members]`);
    expect(body).toMatch(/Resources:\n {4}~ 1 to update\n {4}1001 unchanged\n/);
    expect(body).toMatch(/^#### Access review: `pulumi preview --refresh` of acme\/access\/prod\n\n```text\nPreviewing update \(prod\):\n/);
    expect(body.endsWith("```\n")).toBe(true);
  });

  it("a change of 3,000 people: cut from the front to under GitHub's limit, the summary and the last people kept", async () => {
    const people = Array.from({ length: 3000 }, (_, i) => `person-${String(i).padStart(4, "0")}@northwind.example`);
    const { body } = await comment(previewOutput(10, people));
    expect(body.length).toBeLessThan(65_536);
    expect(body).toContain("(cut from the front: the whole preview is in the job's log)");
    expect(body).toContain("+ person-2999@northwind.example: AI_ADMIN");
    expect(body).not.toContain("+ person-0000@northwind.example");
    expect(body).toMatch(/ {4}11 unchanged\n```\n$/);
    // Whole lines only: the first kept line is a person's.
    expect(body).toMatch(/\(cut from the front: [^\n]*\)\n {6}\+ person-\d{4}@northwind\.example: AI_ADMIN, until 2027-01-31\n/);
  });
});
