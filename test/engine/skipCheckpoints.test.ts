/**
 * `PULUMI_SKIP_CHECKPOINTS=true` (the engine writes the state once, at the end of a run, instead of
 * before and after every step) with this provider's access resources, under the real CLI on a
 * self-managed (file) backend: a `pulumi up` killed half-way (SIGKILL to its process group: a CI
 * runner cancelled, a machine lost) leaves people added in the service that no state records. The
 * killed run leaves its lock on the stack, which `pulumi cancel` removes (as the CLI says). The
 * rerun must converge: every create adopts who is already there, nobody is added twice, nobody
 * declared is missing, and the run after it is no change. A destroy killed half-way leaves a state
 * naming people already removed: the rerun's deletes take "not found" as done.
 *
 * The program is a plain per-person program (OrgMember + DatabaseUserPermissions) in a folder of
 * its own (this checkout linked as the package), run as a user runs it: `pulumi up` in the folder.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_PERMISSIONS, makeWorld, ORG, verifyWorld, type World } from "../../bench/scaleWorld";
import { runAsync } from "../../harness/runAsync";
import { skipWithoutEngine } from "../support/engine";
import { programFolder } from "../support/providerWorld";

skipWithoutEngine("skip-checkpoints");

const SIZE = { members: 150, databases: 3, usersPerDatabase: 20 };
let w: World;
let dir: string;

const env = (skip: boolean): Record<string, string> => ({
  PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
  PULUMI_CONFIG_PASSPHRASE: "test-passphrase",
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  PULUMI_STACK: "dev",
  ...(skip ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
});

/** One pulumi command in the program's folder; fails the test with its output when it fails. */
async function pulumi(args: string[], skip = true): Promise<string> {
  const r = await runAsync("pulumi", [...args, "--non-interactive"], { cwd: dir, env: env(skip) });
  const out = `${r.stdout}${r.stderr}`;
  if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code}:\n${out}`);
  return out;
}

/**
 * Starts `pulumi <args>` in its own process group and kills the group (CLI, language host,
 * program, plugin) with SIGKILL once `when()` holds; resolves once it is gone.
 */
async function killedHalfWay(args: string[], when: () => boolean): Promise<void> {
  const lockFolder = path.join(dir, ".state", ".pulumi", "locks");
  const child = spawn("pulumi", [...args, "--non-interactive"], {
    cwd: dir,
    env: { ...process.env, ...env(true) },
    detached: true,
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  for (;;) {
    if (when()) break;
    const done = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 50))]);
    if (done) throw new Error(`pulumi ${args.join(" ")} finished before it could be killed half-way`);
  }
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  // What the user is told next, and does: the killed run's lock on the stack stays until `pulumi cancel`.
  const locked = await runAsync("pulumi", [...args, "--non-interactive"], { cwd: dir, env: env(true) });
  expect(locked.code).not.toBe(0);
  expect(`${locked.stdout}${locked.stderr}`).toMatch(/the stack is currently locked by 1 lock\(s\)[\s\S]*pulumi cancel/);
  await pulumi(["cancel", "--yes"]);
  expect(fs.readdirSync(lockFolder, { recursive: true }).filter((f) => String(f).endsWith(".json"))).toEqual([]);
}

/** Members of the organization among the program's people, and database users among its grants. */
const membersLive = () => w.members.filter((p) => w.emu.store.members.find(ORG, p.userId)).length;
const grantsLive = () => w.grants.filter((g) => w.emu.store.databases.findUser(g.databaseId, g.userId)).length;
/** Pending invitations to the program's people: a create that invited instead of adopting would leave one. */
const invitationsToThem = () => {
  const emails = new Set(w.members.map((p) => p.email));
  return w.emu.store.invitations.of(ORG).filter((i) => emails.has(i.email)).length;
};
/** The resources the stack's state records, by type. */
async function stateCounts(): Promise<Record<string, number>> {
  const out = await pulumi(["stack", "export"]);
  const deployment = JSON.parse(out.slice(out.indexOf("{"))) as { deployment: { resources?: { type: string }[] } };
  const counts: Record<string, number> = {};
  for (const r of deployment.deployment.resources ?? []) counts[r.type] = (counts[r.type] ?? 0) + 1;
  return counts;
}
const ORG_MEMBER = "pulumi-nodejs:dynamic/reviewadmin:OrgMember";
const DB_GRANT = "pulumi-nodejs:dynamic/reviewadmin:DatabaseUserPermissions";

beforeAll(async () => {
  w = await makeWorld(SIZE);
  dir = programFolder("skip-checkpoints-");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: skip-checkpoints\nruntime: nodejs\nmain: index.js\n");
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "skip-checkpoints", private: true }));
  fs.writeFileSync(path.join(dir, "people.json"), JSON.stringify({ org: ORG, members: w.members, grants: w.grants }));
  fs.writeFileSync(
    path.join(dir, "index.js"),
    [
      'const reviewadmin = require("pulumi-reviewadmin");',
      'const { org, members, grants } = require("./people.json");',
      "for (const p of members) new reviewadmin.OrgMember(`member-${p.userId}`, { organizationId: org, email: p.email, permissions: [] });",
      "for (const g of grants)",
      `  new reviewadmin.DatabaseUserPermissions(\`grant-\${g.databaseId}-\${g.userId}\`, { databaseId: g.databaseId, userId: g.userId, permissions: ${JSON.stringify(DB_PERMISSIONS)} });`,
      "",
    ].join("\n"),
  );
  fs.mkdirSync(path.join(dir, ".state"));
  await pulumi(["stack", "init", "dev", "--secrets-provider", "passphrase"]);
  await pulumi(["config", "set", "reviewadmin:baseUrl", w.emu.url]);
  await pulumi(["config", "set", "--secret", "reviewadmin:apiKey", w.key]);
}, 300_000);
afterAll(async () => {
  await w?.emu.close();
});

describe("PULUMI_SKIP_CHECKPOINTS with a run killed half-way", () => {
  it("an up killed half-way records nothing; the rerun adopts who was added, adds the rest once, and the next run is no change", async () => {
    const half = SIZE.members / 2;
    await killedHalfWay(["up", "--yes", "--skip-preview"], () => membersLive() >= half);
    const addedBeforeKill = membersLive();
    expect(addedBeforeKill).toBeGreaterThanOrEqual(half);
    expect(addedBeforeKill).toBeLessThan(SIZE.members);
    // The hard case: people are in the service and no state says so.
    const counts = await stateCounts();
    expect(counts[ORG_MEMBER] ?? 0).toBe(0);

    const rerun = await pulumi(["up", "--yes", "--skip-preview"]);
    expect(rerun).toMatch(/adopted/);
    expect(verifyWorld(w, "present")).toMatchObject({ ok: true });
    expect(invitationsToThem()).toBe(0);
    expect(await stateCounts()).toMatchObject({ [ORG_MEMBER]: SIZE.members, [DB_GRANT]: w.grants.length });

    const writes = w.emu.traffic.log.list().length;
    await pulumi(["preview", "--expect-no-changes"]);
    await pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    const after = w.emu.traffic.log
      .list()
      .slice(writes)
      .filter((e) => e.method !== "GET" && !e.path.startsWith("/_"));
    expect(after).toEqual([]);
  }, 600_000);

  it("a destroy killed half-way leaves a state naming people already gone; the rerun takes them as removed and removes the rest", async () => {
    const total = w.members.length + w.grants.length;
    await killedHalfWay(["destroy", "--yes", "--skip-preview"], () => membersLive() + grantsLive() <= total / 2);
    expect(membersLive() + grantsLive()).toBeGreaterThan(0);
    // Nothing written: the state still names everyone.
    expect(await stateCounts()).toMatchObject({ [ORG_MEMBER]: SIZE.members, [DB_GRANT]: w.grants.length });

    await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(verifyWorld(w, "gone")).toMatchObject({ ok: true });
    expect(await stateCounts()).not.toHaveProperty(ORG_MEMBER);
  }, 600_000);
});
