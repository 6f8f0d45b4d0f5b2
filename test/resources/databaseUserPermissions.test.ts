/**
 * DatabaseUserPermissions through the real plugin against the emulator: create, adoption of a
 * user who already holds permissions, refresh, drift, update, replace (create-first), delete
 * (also of permissions already gone), check failures and API errors.
 *
 * No 422 test: the resource uses E23 (list), E24 (remove) and E26 (set) only; none creates a
 * capped object (the spec's only 422 is a cap on API-created objects, e.g. datasets), so no
 * operation of this resource can answer 422.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { failuresOfPreview, programFolder, repoRoot, useResourceWorld } from "../support/providerWorld";
import { errorOf, SCENARIO, step } from "../support/scenario";

const DB = SEEDED.databases.open; // 2001, owned by 102, orgAdminAccess on: the org admin key manages its users
const U = SEEDED.users;
const { world, store, record, res, failuresOf } = useResourceWorld("DatabaseUserPermissions");
const permsOf = (db: number, userId: number) => {
  const du = store().databases.findUser(db, userId);
  return du ? [...du.permissions].sort() : undefined;
};

const alanInputs = { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD", "DB_DELETE"] };
const margaretInputs = { databaseId: DB, userId: U.multiOrgMember, permissions: ["DB_UPLOAD", "DB_LEGAL_HOLD"] };

describe("DatabaseUserPermissions", () => {
  it(
    "a new grant and an adopted one: created, refreshed, drifted, updated, replaced create-first, deleted; permissions removed behind its back",
    SCENARIO,
    async () => {
      await step(
        "creates a grant for a user without one (adopted false) and adopts a user who already holds permissions (adopted true)",
        async () => {
          expect(permsOf(DB, U.multiOrgMember)).toEqual(["DB_UPLOAD"]); // seeded
          const sent = record();
          const [alan, margaret] = await world().run(async (run) =>
            Promise.all([(await res(run, "alan")).up(alanInputs), (await res(run, "margaret")).up(margaretInputs)]),
          );
          expect(alan.op).toBe("create");
          expect(alan.id).toBe(`${DB}/${U.member}`);
          expect(alan.outs).toMatchObject({
            databaseId: DB,
            userId: U.member,
            permissions: ["DB_DELETE", "DB_UPLOAD"],
            active: true,
            username: "alan@northwind.example",
            adopted: false,
          });
          expect(margaret.outs).toMatchObject({ userId: U.multiOrgMember, permissions: ["DB_LEGAL_HOLD", "DB_UPLOAD"], adopted: true });
          expect(permsOf(DB, U.member)).toEqual(["DB_DELETE", "DB_UPLOAD"]);
          expect(permsOf(DB, U.multiOrgMember)).toEqual(["DB_LEGAL_HOLD", "DB_UPLOAD"]);
          expect(sent.writes()).toEqual(["PutDatabaseUser 200", "PutDatabaseUser 200"]); // Margaret's adoption adds DB_LEGAL_HOLD
        },
      );

      await step("refresh with nothing changed changes nothing; the next up and a reordered preview are the same", async () => {
        const before = world().states.get("DatabaseUserPermissions/alan")!;
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "alan");
          const s = await d.refresh();
          expect(s?.outputs).toEqual(before.outputs);
          expect(s?.inputs).toMatchObject({ databaseId: DB, userId: U.member, permissions: ["DB_DELETE", "DB_UPLOAD"] });
          expect((await d.up(alanInputs)).op).toBe("same");
          expect((await d.preview({ ...alanInputs, permissions: ["DB_DELETE", "DB_UPLOAD"] })).op).toBe("same");
          const m = await res(run, "margaret");
          expect((await m.refresh())?.outputs).toEqual(world().states.get("DatabaseUserPermissions/margaret")!.outputs);
          expect((await m.up(margaretInputs)).op).toBe("same");
        });
        expect(sent.all()).toEqual(["GetDatabaseUsers 200"]);
      });

      await step("finds drift made behind its back on refresh, and up puts it back", async () => {
        store().databases.setUser(DB, U.member, ["DB_ADMIN"]);
        await world().run(async (run) => {
          const d = await res(run, "alan");
          const s = await d.refresh();
          expect(s?.outputs.permissions).toEqual(["DB_ADMIN"]);
          expect(s?.inputs.permissions).toEqual(["DB_ADMIN"]);
          expect(s?.outputs.adopted).toBe(false);
          expect((await d.preview(alanInputs)).op).toBe("update");
          // Alan is now the database's only DB_ADMIN, but 2001 keeps orgAdminAccess on and 102 has an org
          // admin: anti-lockout lets it go back, saying who loses DB_ADMIN.
          const r = await d.up(alanInputs);
          expect(r.op).toBe("update");
          expect(r.outs.permissions).toEqual(["DB_DELETE", "DB_UPLOAD"]);
          expect(run.plugin.logs.map((l) => l.line)).toContainEqual(
            expect.stringMatching(
              /Alan Turing <alan@northwind\.example> \(user 1003\) loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's org admin still administers it/,
            ),
          );
        });
        expect(permsOf(DB, U.member)).toEqual(["DB_DELETE", "DB_UPLOAD"]);
      });

      await step("updates in place", async () => {
        // Alan becomes the database's only DB_ADMIN: the replace below removes his grant, which anti-lockout allows only so.
        const update = { ...alanInputs, permissions: ["DB_ADMIN", "DB_UPLOAD"], allowAdminRemoval: true };
        const r = await world().run(async (run) => (await res(run, "alan")).up(update));
        expect(r.op).toBe("update");
        expect(r.id).toBe(`${DB}/${U.member}`);
        expect(r.outs).toMatchObject({ permissions: ["DB_ADMIN", "DB_UPLOAD"], adopted: false });
        expect(permsOf(DB, U.member)).toEqual(["DB_ADMIN", "DB_UPLOAD"]);
      });

      await step("replaces create-first on a change of user or database, each change a run of its own", async () => {
        // Let the key's user administer a second database, so moving the grant there can be applied.
        store().databases.setUser(SEEDED.databases.parentOrg, U.orgAdmin, ["DB_ADMIN"]);
        await world().run(async (run) => {
          const byUser = await (await res(run, "alan")).up({ ...alanInputs, userId: U.databaseAdmin });
          expect(byUser.op).toBe("replace");
          expect(byUser.diff).toMatchObject({ replaces: ["userId"] });
          expect(byUser.diff?.deleteBeforeReplace).toBeFalsy();
          expect(byUser.id).toBe(`${DB}/${U.databaseAdmin}`);
        });
        expect(permsOf(DB, U.member)).toBeUndefined();
        await world().run(async (run) => {
          const byDb = await (
            await res(run, "alan")
          ).up({ ...alanInputs, userId: U.databaseAdmin, databaseId: SEEDED.databases.parentOrg });
          expect(byDb.op).toBe("replace");
          expect(byDb.diff).toMatchObject({ replaces: ["databaseId"] });
          expect(byDb.outs).toMatchObject({ databaseId: SEEDED.databases.parentOrg, userId: U.databaseAdmin, adopted: false });
        });
        expect(permsOf(DB, U.databaseAdmin)).toBeUndefined();
        expect(permsOf(SEEDED.databases.parentOrg, U.databaseAdmin)).toEqual(["DB_DELETE", "DB_UPLOAD"]);
      });

      await step("delete removes the user's permissions on the database", async () => {
        await world().run(async (run) => (await res(run, "alan")).destroy());
        expect(permsOf(SEEDED.databases.parentOrg, U.databaseAdmin)).toBeUndefined();
        expect(world().states.get("DatabaseUserPermissions/alan")).toBeUndefined();
      });

      await step("refresh of permissions removed behind its back drops it; delete of permissions already gone succeeds", async () => {
        store().databases.removeUser(DB, U.multiOrgMember);
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "margaret");
          const kept = d.state;
          expect(await d.refresh()).toBeUndefined();
          d.state = kept; // as if the refresh had not run: delete must still succeed (404 counts as done)
          await d.destroy();
          expect(d.state).toBeUndefined();
        });
        expect(permsOf(DB, U.multiOrgMember)).toBeUndefined();
        // The delete's 404 counts as done; the drift found costs the database's owner and one read of its activity log (issue 27).
        expect(sent.all()).toEqual(["DeleteDatabaseUser 404", "GetDatabase 200", "GetDatabaseUsers 200", "GetOrganizationEvents 200"]);
      });
    },
  );

  it("the shipped class documentation says replace is create-first, as the plugin's diff does", async () => {
    await world().run(
      async (run) => {
        const d = await res(run, "doc");
        await d.up(alanInputs);
        const p = await d.preview({ ...alanInputs, userId: U.databaseAdmin });
        expect(p.op).toBe("replace");
        expect(p.diff?.deleteBeforeReplace).toBeFalsy();
      },
      { cwd: programFolder() },
    );
    // The class's documentation, as the published declarations carry it from the source.
    const declared = fs.readFileSync(path.join(repoRoot, "provider/resources/databaseUserPermissions.ts"), "utf8");
    const classDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export interface DatabaseUserPermissions extends/.exec(declared)?.[1] ?? "";
    const prose = classDoc.replace(/\s*\*\s*/g, " ");
    expect(prose).toMatch(/replaces create-first/);
    expect(prose).not.toMatch(/delete-first/);
  });

  it("refuses at preview a create that adopts the key's own grant without DB_ADMIN (a database-admin key); up sends no write", async () => {
    // Barbara (1004) holds DB_ADMIN on 2002, whose orgAdminAccess is off: losing it would leave even the org key with 403 there.
    const RESTRICTED = SEEDED.databases.restricted;
    expect(permsOf(RESTRICTED, U.databaseAdmin)).toEqual(["DB_ADMIN", "DB_UPLOAD"]);
    const barbara = { databaseId: RESTRICTED, userId: U.databaseAdmin, permissions: ["DB_UPLOAD"] };
    const as = { key: world().emu.keys.databaseAdmin, cwd: programFolder() };
    const sent = record();
    await world().run(async (run) => {
      const failed = await failuresOfPreview(await res(run, "barbara"), barbara);
      expect(failed).toEqual([
        {
          property: "permissions",
          reason: expect.stringMatching(
            /^creating DatabaseUserPermissions of user 1004 on database 2002: refused: it would take DB_ADMIN from Barbara Liskov <barbara@northwind\.example> \(user 1004\), the user of the API key in use, locking this program out of database 2002\. Set allowAdminRemoval: true to do it anyway\.$/,
          ),
        },
      ]);
      // Keeping DB_ADMIN, allowing the removal, or permissions not known yet: no refusal at preview.
      const ok = async (name: string, inputs: Record<string, unknown>) => failuresOfPreview(await res(run, name), inputs);
      expect(await ok("keeps", { ...barbara, permissions: ["DB_ADMIN"] })).toEqual([]);
      expect(await ok("allowed", { ...barbara, allowAdminRemoval: true })).toEqual([]);
      expect(await ok("later", { ...barbara, permissions: UNKNOWN })).toEqual([]);
    }, as);
    await world().run(async (run) => {
      await expect((await res(run, "barbara")).up(barbara)).rejects.toThrow(
        /permissions: creating .*refused: it would take DB_ADMIN from Barbara Liskov <barbara@northwind\.example> \(user 1004\), the user of the API key in use, locking this program out of database 2002/,
      );
    }, as);
    expect(sent.writes()).toEqual([]);
    expect(permsOf(RESTRICTED, U.databaseAdmin)).toEqual(["DB_ADMIN", "DB_UPLOAD"]);
  });

  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world().run(async (run) => {
      expect(await failuresOf(run, { databaseId: DB, userId: U.member, permissions: [] })).toMatch(
        /permissions: must hold at least one permission; to take all of them away, delete the resource/,
      );
      expect(await failuresOf(run, { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD", "DB_UPLOAD"] })).toMatch(
        /permissions: must not repeat an item/,
      );
      expect(await failuresOf(run, { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD", "ORG_ADMIN"] })).toMatch(
        /permissions\.1: .*DB_ADMIN.*DB_LEGAL_HOLD/,
      );
      const ids = await failuresOf(run, { databaseId: -1, userId: 1.5, permissions: ["DB_UPLOAD"] });
      expect(ids).toMatch(/databaseId: must be a positive integer database id/);
      expect(ids).toMatch(/userId: /);
      expect(await failuresOf(run, { databaseId: DB, permissions: ["DB_UPLOAD"], email: "alan@northwind.example" })).toMatch(
        /userId: [\s\S]*Unrecognized key: "email"/,
      );

      const p = await (await res(run, "later")).preview({ databaseId: UNKNOWN, userId: U.member, permissions: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world().run(
      async (run) => {
        const err = await errorOf((await res(run, "denied")).up(alanInputs));
        expect(err.message).toMatch(
          /^creating DatabaseUserPermissions of user 1003 on database 2001: the service answered 403 .*\(this needs DB_ADMIN on database 2001, or org admin of its owning organization when the database allows org admin access \(orgAdminAccess\), which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      // The org admin key loses user management on a database whose orgAdminAccess is off.
      const off = await errorOf(
        (await res(run, "restricted")).up({ databaseId: SEEDED.databases.restricted, userId: U.member, permissions: ["DB_UPLOAD"] }),
      );
      expect(off.message).toMatch(
        /^creating DatabaseUserPermissions of user 1003 on database 2002: the service answered 403 .*\(orgAdminAccess\), which the API key in use lacks\)$/,
      );

      const noDb = await errorOf((await res(run, "nowhere")).up({ databaseId: 999999, userId: U.member, permissions: ["DB_UPLOAD"] }));
      expect(noDb.message).toMatch(
        /^creating DatabaseUserPermissions of user 1003 on database 999999: the service answered 404 .*database 999999.*\(/,
      );
      expect(noDb.message).not.toContain("\n");

      const noUser = await errorOf((await res(run, "nobody")).up({ databaseId: DB, userId: 999999, permissions: ["DB_UPLOAD"] }));
      expect(noUser.message).toMatch(
        /^creating DatabaseUserPermissions of user 999999 on database 2001: the service answered 404 .*user 999999/,
      );
      expect(noUser.message).toMatch(/check that database 2001 and user 999999 exist/); // the hint names both ids, not only the database
    });
    expect(permsOf(SEEDED.databases.restricted, U.member)).toBeUndefined();
  });
});
