/**
 * Who changed what, in refresh (issue 27): a member, grant or invitation changed through the
 * web app behind the program's back is refreshed with a warning naming the acting user and the
 * time, from one read of the organization's activity log, sent only because drift was found.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { control } from "../support/emulatorHttp";
import { useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const U = SEEDED.users;
const { world, record, res } = useResourceWorld();

async function web(method: string, path: string, body?: unknown) {
  const r = await control(world().emu.url, method, path, body);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
}

/** The activity-log reads among the requests sent (range, after, recent). */
const logReads = (sent: string[]) => sent.filter((r) => /^Get(Recent)?OrganizationEvents/.test(r));

/** People act in a later second than the program's own writes: refresh looks from the second after the apply. */
const later = () => world().emu.store.clock.advance(2_000);

const when = () => new Date(world().emu.store.clock.now()).toISOString().slice(0, 16);

describe("refresh names who changed a drifted resource", () => {
  it("a member's permissions, a grant and an invitation changed in the web app", SCENARIO, async () => {
    const alan = { organizationId: ORG, email: "alan@northwind.example", permissions: [] };
    const grant = { databaseId: SEEDED.databases.open, userId: U.multiOrgMember, permissions: ["DB_UPLOAD"] };
    const invite = { organizationId: ORG, email: "new.hire@northwind.example", permissions: [] };

    await step("adopt three resources; a refresh without drift reads no activity log", async () => {
      await world().run(async (run) => {
        await (await res(run, "alan", "OrgMember")).up(alan);
        await (await res(run, "margaret", "DatabaseUserPermissions")).up(grant);
        await (await res(run, "newhire", "Invitation")).up(invite);
      });
      const sent = record();
      await world().run(async (run) => {
        for (const [name, kind] of [
          ["alan", "OrgMember"],
          ["margaret", "DatabaseUserPermissions"],
          ["newhire", "Invitation"],
        ] as const)
          await (await res(run, name, kind)).refresh();
      });
      expect(logReads(sent.all())).toEqual([]);
    });

    await step("changes in the web app by named people are named in the refresh, with one log read per organization", async () => {
      later();
      await web("PATCH", `/organizations/${ORG}/members/${U.member}`, { permissions: ["AI_ADMIN"], actingUserId: U.legalHoldAdmin });
      await web("PUT", `/databases/${SEEDED.databases.open}/users/${U.multiOrgMember}`, {
        permissions: ["DB_ADMIN"],
        actingUserId: U.aiAdmin,
      });
      const at = when();
      const sent = record();
      await world().run(async (run) => {
        await (await res(run, "alan", "OrgMember")).refresh();
        await run.plugin.waitForLog(
          new RegExp(
            `refreshing OrgMember alan@northwind\\.example in organization 102: changed outside this program: changed at ${at}\\S* by Frances Allen <frances@northwind\\.example> \\(user ${U.legalHoldAdmin}\\) \\(USER_UPDATED\\)`,
          ),
        );
        await (await res(run, "margaret", "DatabaseUserPermissions")).refresh();
        await run.plugin.waitForLog(
          new RegExp(
            `changed outside this program: changed at ${at}\\S* by Ken Thompson <ken@northwind\\.example> \\(user ${U.aiAdmin}\\) \\(DATABASE_USER_UPDATED\\)`,
          ),
        );
        // Unchanged: no warning, and no further read.
        await (await res(run, "newhire", "Invitation")).refresh();
      });
      expect(logReads(sent.all())).toEqual(["GetOrganizationEvents 200"]);
      // The actors are named from the run's list of 102's members: no read of a person of its own.
      expect(sent.all().filter((r) => r.startsWith("GetOrganizationUser "))).toEqual([]);
    });
  });

  it("with a key that reads the log as a parent organization admin, the time and the actor, details hidden", SCENARIO, async () => {
    // Grace's key is ORG_ADMIN of 101, the parent of 102, and (granted here) DB_ADMIN of 2001: she
    // manages 2001's grants, and reads 102's log as its parent org admin, which hides each event's
    // data and description (spec, Activity events). A parent organization key itself may not read
    // a sub-organization's members or database users, so it never refreshes a grant there.
    const DB = SEEDED.databases.open;
    const grace = { key: world().emu.keys.parentAdminUser };
    const grant = { databaseId: DB, userId: U.multiOrgMember, permissions: ["DB_UPLOAD"] };
    await step("Grace becomes DB_ADMIN of 2001 and adopts Margaret's grant with her own key", async () => {
      await web("PUT", `/databases/${DB}/users/${U.parentAdminUser}`, { permissions: ["DB_ADMIN"], actingUserId: U.orgAdmin });
      await world().run(async (run) => (await res(run, "margaret", "DatabaseUserPermissions")).up(grant), grace);
    });
    await step(
      "Ada changes the grant in the web app; Grace's refresh names the time and Ada's user id (her key may not read 102's members), details hidden",
      async () => {
        later();
        await web("PUT", `/databases/${DB}/users/${U.multiOrgMember}`, { permissions: ["DB_ADMIN"], actingUserId: U.orgAdmin });
        const at = when();
        const sent = record();
        await world().run(async (run) => {
          await (await res(run, "margaret", "DatabaseUserPermissions")).refresh();
          const line = await run.plugin.waitForLog(/refreshing DatabaseUserPermissions .*changed outside this program: /);
          expect(line.line).toMatch(new RegExp(`changed at ${at}\\S* by user ${U.orgAdmin}, details hidden for a parent key`));
          expect(line.line).not.toMatch(/DATABASE_USER_/);
        }, grace);
        // The log answered (redacted), once.
        expect(logReads(sent.all())).toEqual(["GetOrganizationEvents 200"]);
      },
    );
  });

  it(
    "looks only after the program last applied the resource: never at its own write; old states fall back to the recent log",
    SCENARIO,
    async () => {
      const alan = { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] };
      await step("the program gives Alan AI_ADMIN: its own write is in the log (USER_UPDATED by the key's user)", async () => {
        await world().run(async (run) => (await res(run, "alan", "OrgMember")).up(alan));
        const own = world()
          .emu.store.events.all()
          .filter((e) => e.type === "USER_UPDATED" && e.data.userId === U.member)
          .at(-1);
        expect(own?.userId).toBe(U.orgAdmin);
      });
      await step("his permissions change with no event: the refresh says no event since the apply names it", async () => {
        later();
        world().emu.store.members.find(ORG, U.member)!.permissions = [];
        const sent = record();
        await world().run(async (run) => {
          const a = await res(run, "alan", "OrgMember");
          const applied = a.state!.outputs.appliedAt as string;
          expect(applied).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
          await a.refresh();
          const line = await run.plugin.waitForLog(/refreshing OrgMember alan@northwind\.example .*changed outside this program: /);
          expect(line.line).toContain(
            `no event in organization ${ORG}'s activity log since this program last applied it (${applied}) names this change`,
          );
          expect(line.line).not.toMatch(/USER_UPDATED/);
          // Refresh keeps when the program last applied it.
          expect(a.state!.outputs.appliedAt).toBe(applied);
        });
        expect(logReads(sent.all())).toEqual(["GetOrganizationEvents 200"]);
      });
      await step("a state written before appliedAt existed reads the 1,000 most recent events instead", async () => {
        world().emu.store.members.find(ORG, U.member)!.permissions = ["AI_ADMIN", "LEGAL_HOLD_ADMIN"];
        const sent = record();
        await world().run(async (run) => {
          const a = await res(run, "alan", "OrgMember");
          delete a.state!.outputs.appliedAt;
          await a.refresh();
          await run.plugin.waitForLog(
            /refreshing OrgMember alan@northwind\.example .*changed outside this program: changed at \S+ by .*\(user \d+\) \(USER_UPDATED\)/,
          );
        });
        expect(logReads(sent.all())).toEqual(["GetRecentOrganizationEvents 200"]);
      });
    },
  );

  it("a roster names each person whose entry changed, and who added someone it does not declare", SCENARIO, async () => {
    const roster = {
      organizationId: ORG,
      mode: "additive",
      onUnmanaged: "report",
      members: { "alan@northwind.example": { permissions: [] } },
    };
    await step("adopt the roster", async () => {
      await world().run(async (run) => (await res(run, "org", "OrganizationMembers")).up(roster));
    });
    await step("changes in the web app are named, per person, with one log read", async () => {
      later();
      await web("PATCH", `/organizations/${ORG}/members/${U.member}`, { permissions: ["AI_ADMIN"], actingUserId: U.legalHoldAdmin });
      await web("POST", `/organizations/${ORG}/members`, { userId: U.unaffiliated, permissions: ["ORG_ADMIN"], actingUserId: U.aiAdmin });
      const sent = record();
      await world().run(async (run) => {
        await (await res(run, "org", "OrganizationMembers")).refresh();
        const line = await run.plugin.waitForLog(/refreshing OrganizationMembers .*: changed outside this program: /);
        expect(line.line).toMatch(
          new RegExp(
            `alan@northwind\\.example: changed at \\S+ by Frances Allen <frances@northwind\\.example> \\(user ${U.legalHoldAdmin}\\) \\(USER_UPDATED\\)`,
          ),
        );
        expect(line.line).toMatch(
          new RegExp(
            `linus@example\\.com: changed at \\S+ by Ken Thompson <ken@northwind\\.example> \\(user ${U.aiAdmin}\\) \\(USER_ADDED\\)`,
          ),
        );
        // Only the two people whose entries changed are named.
        expect(line.line.match(/[\w.]+@[\w.]+: /g)).toEqual(["alan@northwind.example: ", "linus@example.com: "]);
      });
      expect(logReads(sent.all())).toEqual(["GetOrganizationEvents 200"]);
    });
  });
});
