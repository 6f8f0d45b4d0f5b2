/**
 * The authoritative rosters and request batching, through the real plugin against the emulator:
 * additive and authoritative modes, unmanaged people, refusal of lockout, refresh drift, one
 * list per organization per run, and one E19 for many concurrent creates.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { programFolder, useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const { world, store, calls, record, res, failuresOf } = useResourceWorld("OrganizationMembers");
const peopleOf = (orgId: number) =>
  [
    ...store()
      .members.of(orgId)
      .map((m) => store().users.get(m.userId).email.toLowerCase()),
    ...store()
      .invitations.of(orgId)
      .map((i) => i.email.toLowerCase()),
  ].sort();

describe("OrganizationMembers", () => {
  const additive = {
    organizationId: ORG,
    mode: "additive",
    // The drift gate has tests of its own (test/engine/driftGate.test.ts): here it only reports.
    onUnmanaged: "report",
    members: {
      "Alan@Northwind.example": { permissions: ["AI_ADMIN"] },
      "ken@northwind.example": {},
      "rosa.new@example.com": { firstName: "Rosa", lastName: "New", permissions: ["AI_ADMIN"] },
      "sam.new@example.com": { permissions: ["AI_ADMIN"] },
    },
  };

  it(
    "additive then authoritative: adds, lists the unmanaged, removes nobody, then everyone else; drift; refusals of lockout",
    SCENARIO,
    async () => {
      await step("additive: adds and updates, lists the unmanaged, sends one E19 per permission set", async () => {
        const r = await world().run(async (run) => (await res(run, "org")).up(additive));
        expect(calls("PostOrganizationUsers")).toBe(1);
        expect(Object.keys(r.outs.members)).toEqual([
          "alan@northwind.example",
          "ken@northwind.example",
          "rosa.new@example.com",
          "sam.new@example.com",
        ]);
        expect(r.outs.members["alan@northwind.example"]).toMatchObject({ status: "active", permissions: ["AI_ADMIN"] });
        expect(r.outs.members["rosa.new@example.com"]).toMatchObject({ status: "invited", userId: null });
        expect(r.outs.unmanaged.map((u: any) => u.email)).toContain("ada@northwind.example");
        expect(r.outs.unmanaged.map((u: any) => u.email)).toContain(SEEDED.invitations.pending);
        expect(store().members.get(ORG, SEEDED.users.member).permissions).toEqual(["AI_ADMIN"]);
      });

      await step("additive: leaving someone out of the map removes nobody", async () => {
        const before = peopleOf(ORG);
        const { "ken@northwind.example": _, ...rest } = additive.members;
        const sent = record();
        const r = await world().run(async (run) => (await res(run, "org")).up({ ...additive, members: rest }));
        expect(r.op).toBe("update"); // the map changed (ken is no longer managed), but nobody is removed
        expect(peopleOf(ORG)).toEqual(before);
        expect(r.outs.unmanaged.map((u: any) => u.email)).toContain("ken@northwind.example");
        expect(sent.writes()).toEqual([]);
      });

      await step("additive: declaring someone already there writes nothing, and the preview says so", async () => {
        const sent = record();
        const r = await world().run(async (run) => {
          const d = await res(run, "org");
          expect((await d.preview(additive)).op).toBe("update");
          const said = run.plugin.logs.map((l) => l.line).join("\n");
          expect(said).toMatch(/~ ken@northwind\.example: now in the map, already there as declared \(.*\): nothing to write/);
          expect(said).not.toMatch(/\+ ken@/);
          return d.up(additive);
        });
        expect(sent.writes()).toEqual([]);
        expect(r.outs.members["ken@northwind.example"]).toMatchObject({ status: "active" });
      });

      await step("authoritative: refuses at preview to remove the key's own user, naming them", async () => {
        await world().run(async (run) => {
          const d = await res(run, "org");
          await expect(d.preview({ ...additive, mode: "authoritative" })).rejects.toThrow(/refused: .*ada@northwind\.example/);
        });
      });

      await step("authoritative: removes everyone else, pending invitations included, keeping protected emails", async () => {
        const spec = { ...additive, mode: "authoritative", protectedEmails: ["ADA@northwind.example"] };
        const r = await world().run(async (run) => (await res(run, "org")).up(spec));
        expect(r.op).toBe("update");
        expect(peopleOf(ORG)).toEqual([
          "ada@northwind.example",
          "alan@northwind.example",
          "ken@northwind.example",
          "rosa.new@example.com",
          "sam.new@example.com",
        ]);
        expect(r.outs.unmanaged.map((u: any) => u.email)).toEqual(["ada@northwind.example"]);
        // A second up changes nothing, and sends nothing.
        const sent = record();
        const again = await world().run(async (run) => (await res(run, "org")).up(spec));
        expect(again.op).toBe("same");
        expect(sent.all()).toEqual([]);
      });

      await step("authoritative: refresh shows a member added behind its back, and up removes them", async () => {
        store().members.add(ORG, SEEDED.users.unaffiliated, ["CLOUD_MANAGEMENT_ADMIN"]);
        const spec = { ...additive, mode: "authoritative", protectedEmails: ["ada@northwind.example"] };
        await world().run(async (run) => {
          const d = await res(run, "org");
          const s = await d.refresh();
          expect(s?.inputs.members["linus@example.com"]).toEqual({ permissions: ["CLOUD_MANAGEMENT_ADMIN"] });
          expect((await d.preview(spec)).op).toBe("update");
          await d.up(spec);
        });
        expect(peopleOf(ORG)).not.toContain("linus@example.com");
      });

      await step("refuses to leave the organization without an org admin", async () => {
        await world().run(
          async (run) => {
            const d = await res(run, "org");
            await expect(d.preview({ ...additive, mode: "authoritative" })).rejects.toThrow(/no org admin/);
          },
          { key: world().emu.keys.orgKey },
        );
      });
    },
  );

  it("a preview whose members are not known yet (one entry from another resource's output makes the packed map unknown) passes, writing nothing", async () => {
    const roster = { organizationId: ORG, mode: "additive", onUnmanaged: "report", members: { "alan@northwind.example": {} } };
    await world().run(async (run) => void (await (await res(run, "known")).up(roster)));
    await world().run(async (run) => {
      record();
      const existing = await (await res(run, "known")).preview({ ...roster, members: UNKNOWN });
      expect(existing.check.failures).toEqual([]);
      expect(existing.op).toBe("update");
      const fresh = await (await res(run, "later")).preview({ ...roster, members: UNKNOWN });
      expect(fresh.op).toBe("create");
      expect(fresh.check.failures).toEqual([]);
      expect(calls("PostOrganizationUsers") + calls("PatchOrganizationUser") + calls("DeleteOrganizationUser")).toBe(0);
    });
  });

  it("adds platform users as members, writing identifiers only where they differ from the new membership's", async () => {
    const linus = store().users.get(SEEDED.users.unaffiliated).email.toLowerCase();
    const donald = store().users.get(SEEDED.users.otherOrgAdmin).email.toLowerCase();
    const dk = [{ abbreviation: "DK", label: "Donald Knuth" }];
    const sent = record();
    const members = { [linus]: { userIdentifiers: [] }, [donald]: { userIdentifiers: dk } };
    const r = await world().run(async (run) => (await res(run, "org")).up({ ...additive, members }));
    // One E19 for both; one E22, for Donald: Linus's new membership already has no identifiers.
    expect(sent.writes().map((w) => w.split(" ")[0])).toEqual(["PatchOrganizationUser", "PostOrganizationUsers"]);
    expect(r.outs.members[linus]).toMatchObject({ status: "active", userIdentifiers: [] });
    expect(r.outs.members[donald]).toMatchObject({ status: "active", userIdentifiers: dk });
  });

  it("refuses bad input at check", async () => {
    await world().run(async (run) => {
      const text = await failuresOf(run, { organizationId: ORG, mode: "sometimes", members: { "a@x.example": { permissions: ["ROOT"] } } });
      expect(text).toMatch(/mode: must be "authoritative" or "additive"/);
      expect(text).toMatch(/members\.a@x\.example\.permissions\.0: .*ORG_ADMIN/);
      const keyText = await failuresOf(run, {
        organizationId: ORG,
        mode: "additive",
        members: { "not-an-email": {}, "a@x.example": {}, "A@X.example": {} },
      });
      expect(keyText).toMatch(/'not-an-email' must be an email address/);
      expect(keyText).toMatch(/'(A@X|a@x).example' is listed twice/);
    });
  });
});

describe("DatabaseUsers", () => {
  const DB = SEEDED.databases.open;

  it("refuses a key that is not a user id at check, saying what a key must be", async () => {
    await world().run(
      async (run) => {
        const text = await failuresOf(
          run,
          {
            databaseId: DB,
            mode: "additive",
            users: { "alan@northwind.example": ["DB_UPLOAD"], "0": ["DB_UPLOAD"], "1003": ["DB_UPLOAD"] },
          },
          undefined,
          "DatabaseUsers",
        );
        expect(text.split("\n").sort()).toEqual([
          `users.0: '0' is not a user id (each key must be a user id: a positive integer written as a string, e.g. "1003")`,
          `users.alan@northwind.example: 'alan@northwind.example' is not a user id (each key must be a user id: a positive integer written as a string, e.g. "1003")`,
        ]);
      },
      { cwd: programFolder() },
    );
  });

  it("authoritative then additive: the database equals the map, then nobody is removed", SCENARIO, async () => {
    await step("authoritative: sets and removes so the database equals the map", async () => {
      const r = await world().run(async (run) =>
        (await res(run, "nvc", "DatabaseUsers")).up({
          databaseId: DB,
          mode: "authoritative",
          users: { [SEEDED.users.member]: ["DB_UPLOAD", "DB_DELETE"] },
        }),
      );
      expect(r.outs.users).toEqual({ [SEEDED.users.member]: expect.objectContaining({ permissions: ["DB_DELETE", "DB_UPLOAD"] }) });
      expect(
        store()
          .databases.usersOf(DB)
          .filter((u) => u.permissions.length)
          .map((u) => u.userId),
      ).toEqual([SEEDED.users.member]);
    });

    await step("additive never removes, and lists the unmanaged", async () => {
      store().databases.setUser(DB, SEEDED.users.databaseAdmin, ["DB_ADMIN"]);
      const sent = record();
      const r = await world().run(async (run) =>
        // The drift gate (which would stop on the new DB_ADMIN) has tests of its own: here it only reports.
        (await res(run, "nvc", "DatabaseUsers")).up({
          databaseId: DB,
          mode: "additive",
          onUnmanaged: "report",
          users: { [SEEDED.users.member]: ["DB_UPLOAD"] },
        }),
      );
      expect(store().databases.findUser(DB, SEEDED.users.databaseAdmin)?.permissions).toEqual(["DB_ADMIN"]);
      expect(r.outs.unmanaged).toEqual([expect.objectContaining({ userId: SEEDED.users.databaseAdmin, permissions: ["DB_ADMIN"] })]);
      expect(sent.writes()).toEqual(["PutDatabaseUser 200"]); // the member's new set; no removal
    });
  });

  it("refuses to take DB_ADMIN from the key's own user, writing nothing", async () => {
    const sent = record();
    await world().run(
      async (run) => {
        const d = await res(run, "internal", "DatabaseUsers");
        await expect(
          d.up({ databaseId: SEEDED.databases.restricted, mode: "authoritative", users: { [SEEDED.users.member]: ["DB_UPLOAD"] } }),
        ).rejects.toThrow(
          /refused: it would take DB_ADMIN from Barbara Liskov <barbara@northwind\.example> \(user 1004\), the user of the API key in use, locking this program out of database 2002/,
        );
      },
      { key: world().emu.keys.databaseAdmin },
    );
    expect(sent.writes()).toEqual([]);
  });

  it(
    "a database's last DB_ADMIN: kept when no org admin is left to administer it, unless allowAdminRemoval; else let go, and said",
    SCENARIO,
    async () => {
      // An organization key: no user of its own, so only "the last DB_ADMIN" protects anyone. 2001 keeps orgAdminAccess on.
      store().databases.setUser(DB, SEEDED.users.databaseAdmin, ["DB_ADMIN"]);
      const roster = { databaseId: DB, mode: "authoritative", users: { [SEEDED.users.member]: ["DB_UPLOAD"] } };
      const refusal =
        /^updating DatabaseUsers of database 2001: refused: Barbara Liskov <barbara@northwind\.example> \(user 1004\) is the last DB_ADMIN of database 2001, and organization 102 has no org admin to administer it; removing them would leave it with no DB_ADMIN\. Keep one, or set allowAdminRemoval: true to do it anyway\.$/;
      const asOrg = { key: world().emu.keys.orgKey };
      await step("the first up keeps the DB_ADMIN in the map", () =>
        world().run(
          async (run) =>
            (await res(run, "nvc", "DatabaseUsers")).up({
              ...roster,
              users: { ...roster.users, [SEEDED.users.databaseAdmin]: ["DB_ADMIN"] },
            }),
          asOrg,
        ),
      );
      await step(
        "with no org admin left in organization 102, leaving them out is refused at preview and at up, writing nothing",
        async () => {
          store().members.update(ORG, SEEDED.users.orgAdmin, { permissions: [] });
          const sent = record();
          await world().run(async (run) => {
            const d = await res(run, "nvc", "DatabaseUsers");
            await expect(d.preview(roster)).rejects.toThrow(refusal);
            await expect(d.up(roster)).rejects.toThrow(refusal);
          }, asOrg);
          expect(sent.writes()).toEqual([]);
          expect(store().databases.findUser(DB, SEEDED.users.databaseAdmin)?.permissions).toEqual(["DB_ADMIN"]);
        },
      );
      await step("allowAdminRemoval removes them", async () => {
        await world().run(async (run) => (await res(run, "nvc", "DatabaseUsers")).up({ ...roster, allowAdminRemoval: true }), asOrg);
        expect(store().databases.findUser(DB, SEEDED.users.databaseAdmin)?.permissions ?? []).toEqual([]);
      });
      await step(
        "with an org admin back, a DB_ADMIN given in the web app goes at the next up, no flag: the preview says who loses it, once",
        async () => {
          store().members.update(ORG, SEEDED.users.orgAdmin, { permissions: ["ORG_ADMIN"] });
          store().databases.setUser(DB, SEEDED.users.databaseAdmin, ["DB_ADMIN"]);
          const note =
            "updating DatabaseUsers of database 2001: Barbara Liskov <barbara@northwind.example> (user 1004) loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's org admin still administers it (orgAdminAccess is on)";
          // The drift job's refresh finds the DB_ADMIN; the next preview takes it.
          await world().run(async (run) => (await res(run, "nvc", "DatabaseUsers")).refresh(), asOrg);
          const said = await world().run(async (run) => {
            await (await res(run, "nvc", "DatabaseUsers")).preview(roster);
            return run.plugin.logs.map((l) => l.line);
          }, asOrg);
          expect(said.filter((l) => l.includes(note))).toHaveLength(1);
          const up = await world().run(async (run) => {
            const r = await (await res(run, "nvc", "DatabaseUsers")).up(roster);
            return { op: r.op, said: run.plugin.logs.map((l) => l.line) };
          }, asOrg);
          expect(up.op).toBe("update");
          expect(up.said.filter((l) => l.includes(note))).toHaveLength(1);
          expect(store().databases.findUser(DB, SEEDED.users.databaseAdmin)?.permissions ?? []).toEqual([]);
        },
      );
    },
  );
});

describe("batched reads and writes", () => {
  it("many OrgMembers: created with one E19, refreshed with one list per organization, previewed with no request", SCENARIO, async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `batch${i}@example.com`);

    await step("many OrgMember creates in one run send one E19, each getting its own result", async () => {
      const outs = await world().run(async (run) =>
        Promise.all(
          emails.map(async (email, i) =>
            (await res(run, `batch${i}`, "OrgMember")).up({ organizationId: ORG, email, permissions: ["AI_ADMIN"] }),
          ),
        ),
      );
      expect(calls("PostOrganizationUsers")).toBe(1);
      expect(outs.map((o) => o.outs.email)).toEqual(emails);
      expect(outs.every((o) => o.outs.status === "invited")).toBe(true);
    });

    await step("refreshing many OrgMembers reads one members list per organization per run", async () => {
      const sent = record();
      await world().run(async (run) => {
        const drivers = await Promise.all(emails.map((_, i) => res(run, `batch${i}`, "OrgMember")));
        await Promise.all(drivers.map((d) => d.refresh()));
      });
      expect(sent.all()).toEqual(["GetOrganizationInvitations 200", "GetOrganizationUsers 200"]);
    });

    await step("a preview without refresh sends no request", async () => {
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "batch0", "OrgMember");
        expect((await d.preview({ organizationId: ORG, email: "batch0@example.com", permissions: ["AI_ADMIN"] })).op).toBe("same");
      });
      expect(sent.all()).toEqual([]);
    });
  });
});
