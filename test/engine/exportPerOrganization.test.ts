/**
 * The projects `pulumi-reviewadmin export --per-organization` writes, run as a user runs them
 * (installed with this package from its packed tarball, `pulumi up` by the real engine), on a
 * firm of four organizations one key administers (a parent, its two sub-organizations, and one
 * unrelated; people in several of them): each project's first up adopts its organization's access
 * with 0 writes, and the union of what their stacks declare (`state show --json` of each stack's
 * `pulumi stack export`) is exactly what the one-stack export's stack declares. Not timed: what the
 * split saves in wall time is the benchmark's question. What export writes: test/cli/exportPerOrganization.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ShownResource } from "../../cli/state/showCommand";
import { SEEDED } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { installFromTarball, writesIn } from "../../bench/exportedProject";
import { adaAdministersEveryOrganization, useExportWorld } from "../cli/exportWorld";
import { runCli } from "../cli/runCli";
import { skipWithoutEngine } from "../support/engine";
import { ORDERED } from "../support/scenario";

skipWithoutEngine("test/engine/exportPerOrganization.test.ts");

const { emu, newDir, exportWith } = useExportWorld("export-per-organization-engine");

/** The first up of the exported project in `dir` (a stack of its own): the writes it sent, and what its stack then declares. */
async function adopt(dir: string, project: string): Promise<{ writes: Record<string, number>; ops: string[]; declared: ShownResource[] }> {
  installFromTarball(dir);
  const stack = new EngineStack({
    project,
    stack: "prod",
    config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin!, "reviewadmin:requestsPerSecond": "1000" },
    secretConfigKeys: ["reviewadmin:apiKey"],
  });
  try {
    emu.traffic.log.reset();
    const up = await stack.up(path.join(dir, "index.ts"));
    const writes = writesIn(emu.traffic.log.counters.byOperation);
    const state = path.join(newDir(`state-${project}`));
    fs.writeFileSync(state, JSON.stringify(await stack.exportStack()));
    const shown = await runCli(["state", "show", "--stack-state", state, "--json"]);
    expect(shown.code, shown.err).toBe(0);
    return { writes, ops: [...new Set(up.steps.map((s) => s.op))], declared: JSON.parse(shown.out).resources };
  } finally {
    await stack.close();
  }
}

/** What a stack declares, without the URN (it names the project): kind, name, scope, mode, settings and people, sorted by name. */
const declarations = (resources: ShownResource[]) =>
  resources.map(({ urn: _urn, ...rest }) => rest).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

describe("export --per-organization on a firm of four organizations, run under the engine", ORDERED, () => {
  let perOrganization = "";
  let projects: { id: number; folder: string; project: string }[] = [];
  let oneStack = "";
  const union: ShownResource[] = [];

  beforeAll(async () => {
    emu.reset();
    adaAdministersEveryOrganization(emu);
    perOrganization = path.join(newDir("per-organization"), "access");
    const split = await exportWith(["--per-organization", "--out", perOrganization, "--json", "--quiet"]);
    expect(split.code, split.err).toBe(0);
    projects = JSON.parse(split.out).projects;
    oneStack = path.join(newDir("one-stack"), "access");
    expect((await exportWith(["--out", oneStack, "--quiet"])).code).toBe(0);
  });

  it("each organization's project adopts its organization's access with 0 writes, and declares only that organization's", async () => {
    expect(projects.map((p) => p.id)).toEqual([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg, SEEDED.otherOrg]);
    for (const p of projects) {
      const { writes, ops, declared } = await adopt(path.join(perOrganization, p.folder), p.project);
      expect(writes, p.folder).toEqual({});
      expect(ops, p.folder).toEqual(["create"]);
      const owned = new Set(emu.store.databases.of(p.id).map((d) => `database ${d.id}`));
      for (const r of declared) expect(r.scope === `organization ${p.id}` || owned.has(r.scope!), `${p.folder}: ${r.name}`).toBe(true);
      expect(declared.some((r) => r.scope === `organization ${p.id}`)).toBe(true);
      union.push(...declared);
    }
  });

  it("their union declares exactly what the one-stack export declares (which adopts with 0 writes too)", async () => {
    const whole = await adopt(oneStack, "access");
    expect(whole.writes).toEqual({});
    expect(union.length).toBeGreaterThanOrEqual(6); // four rosters of organizations and the readable databases' rosters
    expect(declarations(union)).toEqual(declarations(whole.declared));
    // People in several organizations are declared in each of theirs: Margaret in 102 and 103, Grace in 101 and 102.
    const holding = (email: string) => union.filter((r) => r.people.some((p) => p.email === email)).map((r) => r.scope);
    expect(holding("margaret@northwind.example")).toEqual(
      expect.arrayContaining([`organization ${SEEDED.org}`, `organization ${SEEDED.subOrg}`]),
    );
    expect(holding("grace@northwind.example")).toEqual(
      expect.arrayContaining([`organization ${SEEDED.parentOrg}`, `organization ${SEEDED.org}`]),
    );
  });
});
