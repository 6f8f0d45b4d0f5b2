/**
 * The project `pulumi-reviewadmin export` writes, run as a user runs it: in its own folder, its
 * dependencies installed with this package from a packed tarball (`npm pack` of dist/, the rest
 * from the registry), type-checked by tsc (end and start dates on its lines too, and the
 * per-person style's, which refuses a start date), and `pulumi up` by the real engine (the
 * language host runs its index.ts): its first up adopts everything with 0 write requests, a second
 * up (--expect-no-changes) and a refresh find nothing to change, the world is unchanged (the
 * default style and the narrowest scope flags here; every style's up runs in
 * test/engine/signoffLoop.test.ts, at scale in test/engine/gitops.test.ts and npm run bench). What
 * export writes, run in this process: test/cli/export.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import type { RunResult } from "../../harness/runResult";
import { installFromTarball, tsc, writesIn } from "../../bench/exportedProject";
import { NARROW, useExportWorld } from "../cli/exportWorld";
import { noEngine } from "../support/engine";
import { worldOf } from "../support/exampleScenarios";
import { ORDERED } from "../support/scenario";

const U = SEEDED.users;
const { emu, newDir, exported } = useExportWorld("exported-project");

/** A copy of an exported project (without node_modules) whose access.ts `edit` changed, asserting it did. */
function withDates(dir: string, label: string, edit: (access: string) => string): string {
  const copy = newDir(label);
  fs.cpSync(dir, copy, { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
  const before = fs.readFileSync(path.join(copy, "access.ts"), "utf8");
  const after = edit(before);
  expect(after).not.toBe(before);
  fs.writeFileSync(path.join(copy, "access.ts"), after);
  return copy;
}

function stackFor(project: string): EngineStack {
  return new EngineStack({
    project,
    stack: "dev",
    config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin!, "reviewadmin:requestsPerSecond": "1000" },
    secretConfigKeys: ["reviewadmin:apiKey"],
  });
}

// The tests that `pulumi up` an exported project need the Pulumi CLI; without it (no Go to build
// it) they skip, and test/support/engine.ts prints why once.
const engineIt = it.skipIf(!!noEngine);
if (noEngine) console.info(`test/engine/exportedProject.test.ts: the exported projects' pulumi up skips: ${noEngine}`);

/** What a run sent to the emulator: requests and writes by operation. */
async function counted(run: () => Promise<RunResult>): Promise<{ result: RunResult; requests: number; writes: Record<string, number> }> {
  emu.traffic.log.reset();
  const result = await run();
  const c = emu.traffic.log.counters;
  return { result, requests: c.total, writes: writesIn(c.byOperation) };
}

const opsOf = (r: RunResult) => [...new Set(r.steps.map((s) => s.op))].sort();
const logText = (r: RunResult) => r.logs.map((l) => l.line).join("\n");

/**
 * The proof of an exported project: its first up creates every resource, each adopting what is
 * there, with 0 writes; a second up sends no request and changes nothing; a refresh (and a preview
 * after it) find nothing; the world is as it was. Returns the first up's result.
 */
async function provesAdoption(dir: string, project: string, opts: { firstUpOnly?: boolean } = {}): Promise<RunResult> {
  const before = worldOf(emu);
  installFromTarball(dir);
  const stack = stackFor(project);
  try {
    const program = path.join(dir, "index.ts");
    const first = await counted(() => stack.up(program));
    expect(first.writes).toEqual({});
    expect(opsOf(first.result)).toEqual(["create"]);
    expect(logText(first.result)).toMatch(/adopted/);
    if (opts.firstUpOnly) return first.result;
    const second = await counted(() => stack.up(program, { expectNoChanges: true }));
    expect(second.requests).toBe(0);
    const refreshed = await counted(() => stack.refresh());
    expect(refreshed.writes).toEqual({});
    expect(refreshed.result.steps.filter((s) => s.op !== "refresh-same").map((s) => `${s.name}: ${s.op}`)).toEqual([]);
    await stack.preview(program, { expectNoChanges: true });
    expect(worldOf(emu)).toEqual(before);
    return first.result;
  } finally {
    await stack.close();
  }
}

describe("the seeded world's exported project", ORDERED, () => {
  let dir: string;
  beforeAll(async () => {
    emu.reset();
    dir = await exported("seeded");
  });

  it("type-checks with tsc, with end and start dates on its lines too", () => {
    const r = tsc(dir);
    expect(r.output).toBe("");
    expect(r.ok).toBe(true);
    // The README's dated entries: { permissions, expiresOn, startsOn } for a grant, expiresOn and startsOn on a member and an invitation.
    const dated = withDates(dir, "seeded-dated", (access) =>
      access
        .replace(
          `${U.multiOrgMember}: ["DB_UPLOAD"],`,
          `${U.multiOrgMember}: { permissions: ["DB_UPLOAD"], expiresOn: "2027-01-01", startsOn: "2026-12-01" },`,
        )
        .replace(/("alan@northwind\.example",[^\n]*) \},/, '$1, expiresOn: "2027-01-01", startsOn: "2026-12-01" },')
        .replace(/("new\.hire@northwind\.example",[^\n]*) \},/, '$1, expiresOn: "2027-01-01" },'),
    );
    expect(tsc(dated)).toMatchObject({ ok: true, output: "" });
  });

  engineIt(
    "its first up adopts everything with 0 writes; a second up sends nothing, a refresh finds nothing; the world is unchanged",
    async () => {
      const first = await provesAdoption(dir, "seeded-rosters");
      expect(first.steps.map((s) => s.name).sort()).toEqual(["database-2001", "organization-102"]);
      expect(logText(first)).toMatch(/adopted 8 people already there/);
    },
  );
});

describe("the per-person style's exported project", () => {
  it("type-checks with tsc, which judges its dates: an end date on a grant is taken, a start date on a person refused", async () => {
    emu.reset();
    const out = await exported("per-person", ["--style", "per-person"]);
    expect(tsc(out)).toMatchObject({ ok: true, output: "" });
    // OrgMember and DatabaseUserPermissions take an end date, not a start date: tsc says so rather than index.ts ignoring it.
    const dated = withDates(out, "per-person-dated", (access) =>
      access.replace(
        `${U.multiOrgMember}: ["DB_UPLOAD"],`,
        `${U.multiOrgMember}: { permissions: ["DB_UPLOAD"], expiresOn: "2027-01-01" },`,
      ),
    );
    expect(tsc(dated)).toMatchObject({ ok: true, output: "" });
    const started = withDates(out, "per-person-started", (access) =>
      access.replace(/("alan@northwind\.example",[^\n]*) \},/, '$1, startsOn: "2026-12-01" },'),
    );
    expect(tsc(started).output).toMatch(
      /access\.ts\(\d+,\d+\): error TS2353: Object literal may only specify known properties, and 'startsOn' does not exist/,
    );
  });
});

describe("the narrowest scope flags' exported project", () => {
  engineIt("its first up adopts what it declares with 0 writes", async () => {
    emu.reset();
    await provesAdoption(await exported("narrow", NARROW), "narrow", { firstUpOnly: true });
  });
});

describe("a scaled world's exported project (2,000 members, 50 databases x 40 users)", () => {
  // Its up at scale runs in test/engine/gitops.test.ts (2,007 members, 0 writes) and in npm run bench (4,007 and 28,007).
  it("type-checks", async () => {
    emu.reset(1, { members: 2000, databases: 50, usersPerDatabase: 40 });
    expect(tsc(await exported("scaled"))).toMatchObject({ ok: true, output: "" });
  });
});
