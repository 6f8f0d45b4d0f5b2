/**
 * States written by older versions, under the real engine. Until 0.2.0 every resource's
 * `__provider` was a serialized provider object (a class whose methods required
 * `pulumi-reviewadmin/runtime` and called `provider(kind)` (0.1.0) or `implementationOf(kind)`);
 * now it is one line calling `shim(kind)`. A resource keeps the text of its last create or update
 * in its outputs, and the engine deletes and refreshes with that text: both older shapes must go
 * on working for refresh, a no-change up, an update (which writes the new text) and destroy.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";

const DB = SEEDED.databases.open;
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
    // Written by today's code: the map is JSON text in the state, and a map again in the program.
    expect(typeof s.find("roster")!.outputs.users).toBe("string");
    expect(updated.outputs.users).toMatchObject({ [member]: { permissions: ["DB_UPLOAD"] } });
    await s.up(today(["DB_UPLOAD"]), { expectNoChanges: true });
    expect((await s.destroy()).steps.map((st) => st.op)).toEqual(["delete"]);
  });
});
