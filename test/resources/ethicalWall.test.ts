/**
 * EthicalWall through the real plugin against the emulator (issue 26): bad input refused at
 * check, naming the field and the rule; the walled people resolved to user ids at check (what the
 * policy pack matches rosters with); the API key's own DB_ADMIN never removed by onBreach "remove"
 * (anti-lockout, said in the state and the log); deleting the wall changes no permission.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { useResourceWorld } from "../support/providerWorld";

const DB = SEEDED.databases.open;
const U = SEEDED.users;
const { world, store, res, failuresOf } = useResourceWorld("EthicalWall");
const valid = { databaseIds: [DB], people: ["ken@northwind.example"], reason: "conflict" };

describe("EthicalWall", () => {
  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world().run(async (run) => {
      expect(await failuresOf(run, { ...valid, databaseIds: [] })).toBe("databaseIds: must name at least one database");
      expect(await failuresOf(run, { ...valid, databaseIds: [0] })).toMatch(/databaseIds\.0: must be a positive integer database id/);
      expect(await failuresOf(run, { ...valid, people: [] })).toBe("people: must name at least one person or domain pattern");
      const rule = "must be an email (ken@northwind.example) or a domain pattern *@domain (*@opposing-counsel.example)";
      expect(await failuresOf(run, { ...valid, people: ["ken", "*@", "*.contoso.example", "a*@contoso.example"] })).toBe(
        [
          `people.0: 'ken' ${rule}`,
          `people.1: '*@' ${rule}`,
          `people.2: '*.contoso.example' ${rule}`,
          `people.3: 'a*@contoso.example' ${rule}`,
        ].join("\n"),
      );
      expect(await failuresOf(run, { ...valid, reason: "  " })).toBe("reason: must say why the wall stands (not blank)");
      expect(await failuresOf(run, { ...valid, onBreach: "delete" })).toBe('onBreach: must be "report" or "remove"');
      const later = await (await res(run, "later")).preview({ ...valid, people: UNKNOWN });
      expect(later.check.failures).toEqual([]);
    });
  });

  it("resolves the walled emails and patterns to user ids at check, lower-cased and sorted", async () => {
    store().databases.setUser(DB, U.noAccess, ["DB_UPLOAD"]); // radia@contoso.example, outside organization 102
    await world().run(async (run) => {
      const p = await (await res(run, "wall")).preview({ ...valid, people: ["*@Contoso.example", "Ken@Northwind.example"] });
      expect(p.check.inputs).toMatchObject({
        people: ["*@contoso.example", "ken@northwind.example"],
        onBreach: "report",
        walledUsers: { [String(U.noAccess)]: "radia@contoso.example", [String(U.aiAdmin)]: "ken@northwind.example" },
        // 2001 keeps orgAdminAccess on: org admins of 102 reach it (what the policy pack checks ORG_ADMIN grants against).
        orgAdminReach: { [String(DB)]: SEEDED.org },
      });
    });
  });

  it('onBreach "remove" never removes the API key\'s own DB_ADMIN (anti-lockout), and says so; deleting the wall removes nothing', async () => {
    store().databases.setUser(DB, U.orgAdmin, ["DB_ADMIN"]); // Ada: the key's user
    store().databases.setUser(DB, U.databaseAdmin, ["DB_ADMIN"]); // another DB_ADMIN: Ada is not the last
    store().databases.setUser(DB, U.aiAdmin, ["DB_UPLOAD"]); // Ken
    const inputs = { ...valid, people: ["ada@northwind.example", "ken@northwind.example"], onBreach: "remove" };
    const wall = await world().run(async (run) => (await res(run, "wall")).up(inputs));
    expect(wall.outs.breaches).toEqual([
      {
        databaseId: DB,
        userId: U.orgAdmin,
        email: "ada@northwind.example",
        permissions: ["DB_ADMIN"],
        keptBecause: "it is the grant of the API key's own user (anti-lockout)",
      },
    ]);
    expect(store().databases.findUser(DB, U.aiAdmin)).toBeUndefined();
    expect(store().databases.findUser(DB, U.orgAdmin)?.permissions).toEqual(["DB_ADMIN"]);
    // Ada is also org admin of 102, and 2001 keeps orgAdminAccess on.
    expect(wall.outs.unenforceable).toEqual([
      { databaseId: DB, organizationId: SEEDED.org, userId: U.orgAdmin, email: "ada@northwind.example" },
    ]);
    await world().run(async (run) => (await res(run, "wall")).destroy());
    expect(store().databases.findUser(DB, U.orgAdmin)?.permissions).toEqual(["DB_ADMIN"]);
  });
});
