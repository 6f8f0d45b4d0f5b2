/**
 * EthicalWall through the real plugin against the emulator (issues 26, 37): bad input refused at
 * check, naming the field and the rule; the walled people resolved to user ids at check (what the
 * policy pack matches rosters with); the API key's own DB_ADMIN never removed by onBreach "remove"
 * (anti-lockout, said in the state and the log); deleting the wall changes no permission. The
 * matter-team form: everyone outside the team holding permissions is a breach, with who made it;
 * an exception admits a person until its end by the service's clock, then they are a breach again.
 */
import { describe, expect, it } from "vitest";
import { dayOf } from "../../contract/grants";
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
      const form = "give exactly one of people (who is walled off) or team (the matter team: everyone else is walled off)";
      expect(await failuresOf(run, { databaseIds: [DB], reason: "conflict" })).toBe(`people: ${form}`);
      expect(await failuresOf(run, { ...valid, team: ["alan@northwind.example"] })).toBe(`team: ${form}, not both`);
      expect(await failuresOf(run, { ...valid, alsoAllowed: ["frances@northwind.example"] })).toBe(
        "alsoAllowed: is for a matter-team wall (team) only: a wall of people admits everyone it does not name",
      );
      expect(await failuresOf(run, { databaseIds: [DB], team: [], reason: "matter" })).toBe(
        "team: must name at least one team member or domain pattern",
      );
      const x = { person: "ken@northwind.example", approver: "grace@northwind.example", reason: "client waiver", endsOn: "2026-12-01" };
      expect(
        await failuresOf(run, {
          ...valid,
          exceptions: [
            { ...x, endsOn: "2026-13-01" },
            { ...x, startsOn: "2026-12-01" },
            { ...x, approver: "grace", reason: " " },
          ],
        }),
      ).toBe(
        [
          'exceptions.0.endsOn: must be a calendar day written YYYY-MM-DD (UTC), e.g. "2026-12-31"',
          "exceptions.1.endsOn: must be after startsOn (2026-12-01): the exception ends at the start of the endsOn day",
          "exceptions.2.approver: must be an email address",
          "exceptions.2.reason: must say why the exception was approved (not blank)",
        ].join("\n"),
      );
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

  it("a matter-team wall: everyone outside the team with access is a breach, however they got it, with who made it; remove keeps the lockout rule", async () => {
    // In the web application, Ada (1001) gives Linus (outside every organization) DB_UPLOAD; Margaret holds DB_UPLOAD from the seed.
    store().databases.setUser(DB, U.unaffiliated, ["DB_UPLOAD"]);
    store().databases.logWebAppChange(DB, U.unaffiliated, ["DB_UPLOAD"], U.orgAdmin);
    store().databases.setUser(DB, U.member, ["DB_DELETE"]); // Alan: on the team
    const inputs = {
      databaseIds: [DB],
      team: ["alan@northwind.example", "barbara@northwind.example"],
      alsoAllowed: ["frances@northwind.example"],
      reason: "Northwind v. Contoso matter team",
      onBreach: "remove",
    };
    const p = await world().run(async (run) => (await res(run, "team")).preview(inputs));
    expect(p.check.failures).toEqual([]);
    // The policy pack's map: everyone the wall closes 2001 to, not the team nor alsoAllowed.
    const walled = Object.values(p.check.inputs.walledUsers as Record<string, string>);
    expect(walled).toEqual(expect.arrayContaining(["ada@northwind.example", "margaret@northwind.example", "linus@example.com"]));
    expect(walled).not.toEqual(expect.arrayContaining(["alan@northwind.example"]));
    expect(walled).not.toContain("frances@northwind.example");

    const wall = await world().run(async (run) => {
      const up = await (await res(run, "team")).up(inputs);
      const said = run.plugin.logs.map((l) => l.line).join("\n");
      expect(said).toMatch(
        /removed linus@example\.com \(user 1011\) holds DB_UPLOAD on database 2001 \(changed at \S+ by Ada Lovelace <ada@northwind\.example> \(user 1001\) \(DATABASE_USER_UPDATED\)\)/,
      );
      return up;
    });
    expect(store().databases.findUser(DB, U.unaffiliated)).toBeUndefined();
    expect(store().databases.findUser(DB, U.multiOrgMember)).toBeUndefined(); // Margaret
    expect(store().databases.findUser(DB, U.member)?.permissions).toEqual(["DB_DELETE"]);
    expect(wall.outs.breaches).toEqual([]);
    expect((wall.outs.removals as { email: string; madeBy?: string }[]).map((r) => [r.email, !!r.madeBy])).toEqual([
      ["margaret@northwind.example", false],
      ["linus@example.com", true],
    ]);
    // Ada is org admin of 102 and outside the team: 2001 keeps orgAdminAccess on, so org admins reach it.
    expect(wall.outs.unenforceable).toEqual([
      { databaseId: DB, organizationId: SEEDED.org, userId: U.orgAdmin, email: "ada@northwind.example" },
    ]);
  });

  it("an exception admits an outsider until its end by the service's clock; then they are a breach again, said so", async () => {
    const now = store().clock.now();
    const endsOn = dayOf(now + 3 * 86_400_000);
    const exception = {
      person: "Margaret@Northwind.example",
      approver: "grace@northwind.example",
      reason: "e-discovery engineer for the production",
      clientConsentRef: "NVC-WAIVER-7",
      endsOn,
    };
    const inputs = { databaseIds: [DB], team: ["alan@northwind.example"], reason: "matter team", exceptions: [exception] };
    const admitted = { ...exception, person: "margaret@northwind.example" };
    const first = await world().run(async (run) => {
      const up = await (await res(run, "team")).up(inputs);
      expect(run.plugin.logs.map((l) => l.line).join("\n")).toContain(
        `exception in force: margaret@northwind.example (approved by grace@northwind.example: e-discovery engineer for the production; client consent NVC-WAIVER-7; until ${endsOn})`,
      );
      return up;
    });
    expect(first.outs.breaches).toEqual([]);
    expect(first.outs.exceptionsInForce).toEqual([admitted]);

    store().clock.advance(3 * 86_400_000); // the service's day is now endsOn: the exception has ended
    const after = await world().run(async (run) => {
      const state = await (await res(run, "team")).refresh();
      expect(run.plugin.logs.map((l) => l.line).join("\n")).toMatch(
        /breach: margaret@northwind\.example .* their exception has ended: margaret@northwind\.example \(approved by grace/,
      );
      return state!;
    });
    expect(after.outputs.exceptionsInForce).toEqual([]);
    expect(after.outputs.breaches).toEqual([
      expect.objectContaining({
        databaseId: DB,
        userId: U.multiOrgMember,
        email: "margaret@northwind.example",
        permissions: ["DB_UPLOAD"],
      }),
    ]);
  });

  it("a wall stored before matter teams and exceptions refreshes to the same outputs", async () => {
    const older = await world().run(async (run) => (await res(run, "old")).up(valid));
    const fresh = await world().run(async (run) => (await res(run, "old")).refresh());
    expect(fresh!.outputs).toEqual(older.outs);
    // And the program unchanged diffs to no change.
    const again = await world().run(async (run) => (await res(run, "old")).preview(valid));
    expect(again.op).toBe("same");
    // The outputs a wall of people had before issue 37: none of the new fields appear unless declared.
    expect(
      Object.keys(older.outs)
        .filter((k) => !k.startsWith("__"))
        .sort(),
    ).toEqual([
      "appliedAt",
      "breaches",
      "databaseIds",
      "onBreach",
      "orgAdminReach",
      "people",
      "reason",
      "schemaVersion",
      "unenforceable",
      "unreadableDatabaseIds",
      "walledUsers",
    ]);
  });
});
