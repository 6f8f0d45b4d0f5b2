/**
 * The in-process driver (test/support/inProcessPlugin.ts) answers as Pulumi's real dynamic-provider
 * plugin does. The service tier proves every resource through it, so here one scenario per shape
 * runs twice, once in the test's process and once through the real plugin (a process per run,
 * loading the package from dist/), each against a fresh seeded emulator: every step's result
 * (the step taken, the checked inputs, the outputs, the diff, the refresh), what the runs said and
 * the requests the emulator answered must be the same. The shapes: a per-person resource (check,
 * create, a no-change up, a preview of a change, update, drift read by refresh, destroy), a
 * roster (its maps cross the plugin packed: a small one as values), a check failure, and a create that fails.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { PluginError } from "../../harness/pluginDriver";
import { failuresOfPreview, startProviderWorld, type ProviderWorld } from "../support/providerWorld";
import { SCENARIO } from "../support/scenario";

const ORG = SEEDED.org;

/** What a scenario saw, with what differs between two runs of the same world taken out (times). */
interface Seen {
  steps: unknown[];
  said: string[];
  requests: string[];
}

/** A value with its timestamps replaced, so that two runs a second apart compare equal. */
const timeless = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v ?? null), (_k, x) => (typeof x === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(x) ? "<time>" : x));

/** Runs `scenario` in a fresh world served by one driver, and what it saw. */
async function seen(process: boolean, scenario: (w: ProviderWorld, steps: unknown[], said: string[]) => Promise<void>): Promise<Seen> {
  const w = await startProviderWorld({ process });
  try {
    const steps: unknown[] = [];
    const said: string[] = [];
    await scenario(w, steps, said);
    const requests = w.emu.traffic.log.list().map((e) => `${e.method} ${e.operation ?? e.path} ${e.status}`);
    return { steps: steps.map(timeless), said: said.map((l) => l.replace(/\d{4}-\d\d-\d\dT\S+/g, "<time>")), requests };
  } finally {
    await w.close();
  }
}

/** One run of `fn`, keeping what the run said. */
const run = <T>(w: ProviderWorld, said: string[], fn: (r: Parameters<Parameters<ProviderWorld["run"]>[0]>[0]) => Promise<T>) =>
  w.run(async (r) => {
    try {
      return await fn(r);
    } finally {
      said.push(...r.plugin.logs.map((l) => `${l.stream} ${l.line}`));
    }
  });

/** The scenario's steps in both drivers, compared. */
async function same(scenario: (w: ProviderWorld, steps: unknown[], said: string[]) => Promise<void>): Promise<Seen> {
  const inProcess = await seen(false, scenario);
  const plugin = await seen(true, scenario);
  expect(inProcess.steps).toEqual(plugin.steps);
  expect(inProcess.said).toEqual(plugin.said);
  expect(inProcess.requests).toEqual(plugin.requests);
  return plugin;
}

describe("the in-process driver answers as the real plugin", () => {
  it("a per-person resource: check, create, no change, a previewed change, update, drift refreshed, destroy", SCENARIO, async () => {
    const inputs = { organizationId: ORG, userId: SEEDED.users.member, permissions: ["AI_ADMIN"] };
    const got = await same(async (w, steps, said) => {
      const step = async (fn: (r: Parameters<Parameters<ProviderWorld["run"]>[0]>[0]) => Promise<unknown>) =>
        steps.push(await run(w, said, fn));
      const d = (r: { resource(k: string, n: string): Promise<import("../../harness/resourceDriver").ResourceDriver> }) =>
        r.resource("OrgMemberPermissions", "alan");
      await step(async (r) => (await d(r)).up(inputs));
      await step(async (r) => (await d(r)).up(inputs));
      await step(async (r) => (await d(r)).preview({ ...inputs, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] }));
      await step(async (r) => (await d(r)).up({ ...inputs, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] }));
      // A person acts in a later second than the program's own writes (refresh looks from the second after the apply).
      w.emu.store.clock.advance(2_000);
      w.emu.store.members.update(ORG, SEEDED.users.member, { permissions: [] }, SEEDED.users.orgAdmin);
      w.emu.store.changed();
      await step(async (r) => (await d(r)).refresh());
      await step(async (r) => (await d(r)).destroy());
    });
    expect(got.steps.map((s) => (s as { op?: string } | undefined)?.op)).toEqual([
      "create",
      "same",
      "update",
      "update",
      undefined,
      undefined,
    ]);
    expect(got.said.join("\n")).toMatch(/changed outside this program/);
  });

  it("a roster, whose maps cross the plugin packed (small: as values): adopt, no change, a person added", SCENARIO, async () => {
    const roster = {
      organizationId: ORG,
      mode: "additive",
      onUnmanaged: "report",
      members: { "alan@northwind.example": { permissions: ["AI_ADMIN"] }, "ken@northwind.example": {} },
    };
    const got = await same(async (w, steps, said) => {
      const up = (inputs: object) => run(w, said, async (r) => (await r.resource("OrganizationMembers", "org")).up(inputs));
      steps.push(await up(roster));
      steps.push(await up(roster));
      steps.push(await up({ ...roster, members: { ...roster.members, "rosa.new@example.com": { permissions: ["AI_ADMIN"] } } }));
    });
    expect(got.steps.map((s) => (s as { op: string }).op)).toEqual(["create", "same", "update"]);
  });

  it("a check failure, and a create the service refuses", SCENARIO, async () => {
    await same(async (w, steps, said) => {
      steps.push(
        await run(w, said, async (r) =>
          failuresOfPreview(await r.resource("OrgMember", "bad"), { organizationId: ORG, email: "not an email", permissions: [] }),
        ),
      );
      const refused = await run(w, said, async (r) =>
        (await r.resource("DatabaseUserPermissions", "nobody")).up({
          databaseId: SEEDED.databases.open,
          userId: 999999,
          permissions: ["DB_UPLOAD"],
        }),
      ).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PluginError);
      steps.push({ rpc: (refused as PluginError).rpc, message: (refused as PluginError).message });
    });
  });
});
