/**
 * States written by older versions, under the real engine. Until 0.2.0 every resource's
 * `__provider` was a serialized provider object (a class whose methods required
 * `pulumi-reviewadmin/runtime` and called `provider(kind)` (0.1.0) or `implementationOf(kind)`);
 * now it is one line calling `shim(kind)`. A resource keeps the text of its last create or update
 * in its outputs, and the engine deletes and refreshes with that text: both older shapes must go
 * on working for refresh, a no-change up, an update (which writes the new text) and destroy.
 * A roster's maps and settings: stored as property maps before 0.3.0, as JSON text since (deflated
 * when long), and now as values when small (contract/packed.ts); each older form still reads.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { canonicalJson, PACKED_PROPERTIES } from "../../contract/packed";
import { runAsync } from "../../harness/runAsync";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";

const DB = SEEDED.databases.open;
const repoRoot = path.resolve(__dirname, "../..");
const world = useProgramWorld("older-states");

/** A serialized provider as older versions stored it, calling `runtime.<call>(this.kind)` for each method. */
function olderProvider(kind: string, call: "provider" | "implementationOf"): string {
  const method = (name: string, params: string) =>
    `  ${name}(${params}) { return require("pulumi-reviewadmin/runtime").${call}(this.kind).${name}(${params}); },`;
  return [
    "exports.handler = __f0;",
    "var __provider = {",
    `  kind: ${JSON.stringify(kind)},`,
    '  configure(req) { require("pulumi-reviewadmin/runtime").configure(req); return Promise.resolve(); },',
    method("check", "olds, news"),
    method("diff", "id, olds, news"),
    method("create", "inputs"),
    method("read", "id, props"),
    method("update", "id, olds, news"),
    method("delete", "id, props"),
    "};",
    "function __f0() { return __provider; }",
    "",
  ].join("\n");
}

/** A DatabaseUserPermissions as an older version registered it: same type token, its provider text. */
class OlderGrant extends pulumi.CustomResource {
  constructor(name: string, args: Record<string, unknown>, providerText: string) {
    super("pulumi-nodejs:dynamic/reviewadmin:DatabaseUserPermissions", name, { ...args, __provider: providerText });
  }
}

describe("a stack written by an older version", () => {
  it.each(["provider", "implementationOf"] as const)(
    "with providers calling runtime.%s(kind): refresh, no-change up, update, destroy",
    async (call) => {
      const s = world.freshStack();
      const args = { databaseId: DB, userId: SEEDED.users.member, permissions: ["DB_UPLOAD"] };
      await s.up(() => void new OlderGrant("grant", args, olderProvider("DatabaseUserPermissions", call)));
      expect(s.find("grant")!.outputs.__provider).toContain(`.${call}(this.kind)`);

      // Today's program: the same resource, declared with today's class.
      const today = (permissions: string[]) => () =>
        void new reviewadmin.DatabaseUserPermissions("grant", { ...args, permissions: permissions as ["DB_UPLOAD"] });
      world.emu.store.databases.setUser(DB, SEEDED.users.member, ["DB_DELETE"]);
      world.emu.store.changed();
      const refresh = await s.refresh();
      expect(refresh.steps.map((st) => st.op)).toEqual(["refresh-changed"]);
      await s.up(today(["DB_UPLOAD"])); // puts the drift back: an update, which stores today's text
      expect(world.emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);
      expect(s.find("grant")!.outputs.__provider).toContain(".shim(");
      await s.up(today(["DB_UPLOAD"]), { expectNoChanges: true });
      const destroy = await s.destroy();
      expect(destroy.steps.map((st) => st.op)).toEqual(["delete"]);
      expect(world.emu.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
    },
  );

  it("deletes a resource whose state still holds an older provider (removed from the program)", async () => {
    const s = world.freshStack();
    const args = { databaseId: DB, userId: SEEDED.users.unaffiliated, permissions: ["DB_UPLOAD"] };
    await s.up(() => void new OlderGrant("grant", args, olderProvider("DatabaseUserPermissions", "provider")));
    expect(world.emu.store.databases.findUser(DB, SEEDED.users.unaffiliated)?.permissions).toEqual(["DB_UPLOAD"]);
    const removed = await s.up(() => {});
    expect(removed.steps.map((st) => st.op)).toEqual(["delete"]);
    expect(world.emu.store.databases.findUser(DB, SEEDED.users.unaffiliated)).toBeUndefined();
  });

  it("a roster whose state holds its maps as property maps (before 0.3.0 packed them): no-change up, refresh, update, destroy", async () => {
    const s = world.freshStack();
    const member = String(SEEDED.users.member);
    const args = { databaseId: DB, mode: "additive", users: { [member]: ["DB_UPLOAD"] } };
    await s.up(
      () =>
        void new (class extends pulumi.CustomResource {})("pulumi-nodejs:dynamic/reviewadmin:DatabaseUsers", "roster", {
          ...args,
          __provider: olderProvider("DatabaseUsers", "implementationOf"),
        }),
    );
    expect(s.find("roster")!.outputs.users).toMatchObject({ [member]: { permissions: ["DB_UPLOAD"] } });

    // Today's program: the same roster, whose class packs its maps; the stored maps read as before.
    const today = (permissions: string[]) => () => {
      const roster = new reviewadmin.DatabaseUsers("roster", {
        ...args,
        mode: "additive",
        users: { [member]: permissions as ["DB_UPLOAD"] },
      });
      return { users: roster.users };
    };
    const same = await s.up(today(["DB_UPLOAD"]), { expectNoChanges: true });
    expect(same.outputs.users).toMatchObject({ [member]: { permissions: ["DB_UPLOAD"] } });
    world.emu.store.databases.setUser(DB, SEEDED.users.member, ["DB_DELETE"]);
    world.emu.store.changed();
    expect((await s.refresh()).steps.map((st) => st.op)).toEqual(["refresh-changed"]);
    const updated = await s.up(today(["DB_UPLOAD"]));
    expect(world.emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);
    // Written by today's code: a small map is a value in the state (contract/packed.ts), and a map in the program.
    expect(s.find("roster")!.outputs.users).toMatchObject({ [member]: { permissions: ["DB_UPLOAD"] } });
    expect(updated.outputs.users).toMatchObject({ [member]: { permissions: ["DB_UPLOAD"] } });
    await s.up(today(["DB_UPLOAD"]), { expectNoChanges: true });
    expect((await s.destroy()).steps.map((st) => st.op)).toEqual(["delete"]);
  });

  it("a small roster's maps and settings are values in `pulumi stack export`; a state holding them as JSON text still reads, and a no-change up stays no-change", async () => {
    const s = world.freshStack();
    const email = world.emu.store.users.get(SEEDED.users.member).email.toLowerCase();
    const program = (exceptions: string[]) => () =>
      void new reviewadmin.OrganizationMembers("legal", {
        organizationId: SEEDED.org,
        mode: "additive",
        onUnmanaged: "report",
        members: { [email]: {} },
        knownExceptions: exceptions,
      });
    /** The roster as `pulumi stack export` prints it. */
    const exported = async () => {
      const r = await s.cli(["stack", "export"]);
      expect(r.code, r.stderr).toBe(0);
      const deployment = JSON.parse(r.stdout) as { deployment: { resources: { urn: string; inputs: object; outputs: object }[] } };
      const roster = deployment.deployment.resources.find((x) => x.urn.endsWith("::legal"))!;
      return { deployment, roster: roster as { inputs: Record<string, unknown>; outputs: Record<string, unknown> } };
    };

    await s.up(program(["linus@example.com"]));
    const { deployment, roster } = await exported();
    for (const props of [roster.inputs, roster.outputs]) {
      expect(props.members).toMatchObject({ [email]: {} });
      expect(props.knownExceptions).toEqual(["linus@example.com"]);
      expect(props.onUnmanaged).toBe("report");
    }
    expect(typeof roster.outputs.managed).toBe("object");
    expect(roster.outputs.members).toMatchObject({ [email]: { status: "active" } });
    await s.up(program(["linus@example.com"]), { expectNoChanges: true });

    // The same state as the versions before wrote it: every packed property (maps, lists) as JSON text.
    const asText = (props: Record<string, unknown>) => {
      for (const f of PACKED_PROPERTIES.OrganizationMembers!)
        if (props[f] !== null && typeof props[f] === "object") props[f] = canonicalJson(props[f]);
    };
    asText(roster.inputs);
    asText(roster.outputs);
    expect(roster.outputs.knownExceptions).toBe('["linus@example.com"]');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-older-")), "state.json");
    fs.writeFileSync(file, JSON.stringify(deployment));
    // `state show` reads it from standard input, as a pipe from `pulumi stack export` gives it (the compiled bin).
    const shown = await runAsync("sh", [
      "-c",
      `"${process.execPath}" "${path.join(repoRoot, "dist/cli/main.js")}" state show --stack-state - < "${file}"`,
    ]);
    expect(shown.stderr).toBe("");
    expect(shown.stdout).toContain(
      `OrganizationMembers "legal"  organization ${SEEDED.org}  additive\n  knownExceptions: linus@example.com\n  onUnmanaged: report\n  people (1):\n    ${email} (user ${SEEDED.users.member})  permissions not managed  active`,
    );
    const imported = await s.cli(["stack", "import", "--file", file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await exported()).roster.outputs.members).toMatch(/^\{/);

    // It reads: a no-change up and a refresh that finds nothing change nothing, and the refresh rewrites no text.
    await s.up(program(["linus@example.com"]), { expectNoChanges: true });
    expect((await s.refresh()).steps.map((st) => st.op)).toEqual(["refresh-same"]);
    expect((await exported()).roster.outputs.knownExceptions).toBe('["linus@example.com"]');
    // The roster's next write stores values.
    await s.up(program(["linus@example.com", "grace@example.com"]));
    const after = (await exported()).roster.outputs;
    expect(after.knownExceptions).toEqual(["grace@example.com", "linus@example.com"]);
    expect(after.members).toMatchObject({ [email]: { status: "active" } });
    await s.up(program(["linus@example.com", "grace@example.com"]), { expectNoChanges: true });
  });
});
