/**
 * UserIdentifiers through the real plugin against the emulator: create (by email and by user
 * id), refresh, drift, update, replace, delete (also of a member already gone), check failures
 * and API errors.
 *
 * No 422 test: the resource uses E18 (list members) and E22 (update member) only, and neither
 * has an operation-specific cap on API-created objects (the spec's only 422), so no operation
 * of this resource can answer 422.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { useResourceWorld } from "../support/providerWorld";
import { errorOf, SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const U = SEEDED.users;
const { world, store, record, res, failuresOf } = useResourceWorld("UserIdentifiers");
const idsOf = (userId: number) =>
  [...store().members.get(ORG, userId).userIdentifiers].sort((a, b) => a.abbreviation.localeCompare(b.abbreviation));

const BL = { abbreviation: "BL", label: "Barbara Liskov" };
const INV = { abbreviation: "INV", label: "Investigations" };
const AT = { abbreviation: "AT", label: "Alan Turing" };
const TUR = { abbreviation: "TUR", label: "A. M. Turing" };
const barbaraInputs = { organizationId: ORG, email: "Barbara@Northwind.example", identifiers: [INV, BL] };
const alanInputs = { organizationId: ORG, userId: U.member, identifiers: [TUR, AT] };

describe("UserIdentifiers", () => {
  it(
    "by email and by user id: created, refreshed, drifted, updated, replaced, deleted; a member removed behind its back",
    SCENARIO,
    async () => {
      await step("creates by email and by user id, sorted by abbreviation, leaving permissions alone", async () => {
        const sent = record();
        const [barbara, alan] = await world().run(async (run) =>
          Promise.all([(await res(run, "barbara")).up(barbaraInputs), (await res(run, "alan")).up(alanInputs)]),
        );
        expect(barbara.op).toBe("create");
        expect(barbara.id).toBe(`${ORG}/${U.databaseAdmin}`);
        expect(barbara.outs).toMatchObject({
          organizationId: ORG,
          userId: U.databaseAdmin,
          email: "barbara@northwind.example",
          identifiers: [BL, INV],
        });
        expect(alan.outs).toMatchObject({ userId: U.member, email: "alan@northwind.example", identifiers: [AT, TUR] });
        expect(idsOf(U.databaseAdmin)).toEqual([BL, INV]);
        expect(idsOf(U.member)).toEqual([AT, TUR]);
        expect(store().members.get(ORG, U.member).permissions).toEqual([]);
        expect(sent.writes()).toEqual(["PatchOrganizationUser 200", "PatchOrganizationUser 200"]);
      });

      await step("refresh with nothing changed changes nothing; the next up and a reordered preview are the same", async () => {
        const before = world().states.get("UserIdentifiers/barbara")!;
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "barbara");
          const s = await d.refresh();
          expect(s?.outputs).toEqual(before.outputs);
          expect(s?.inputs).toMatchObject({ organizationId: ORG, email: "barbara@northwind.example", identifiers: [BL, INV] });
          expect((await d.up(barbaraInputs)).op).toBe("same");
          expect((await d.preview({ ...barbaraInputs, identifiers: [{ label: BL.label, abbreviation: BL.abbreviation }, INV] })).op).toBe(
            "same",
          );
          const a = await res(run, "alan");
          expect((await a.refresh())?.outputs).toEqual(world().states.get("UserIdentifiers/alan")!.outputs);
          expect((await a.up(alanInputs)).op).toBe("same");
        });
        expect(sent.all()).toEqual(["GetOrganizationUsers 200"]);
      });

      await step("finds drift made behind its back on refresh, and up puts it back", async () => {
        store().members.update(ORG, U.databaseAdmin, { userIdentifiers: [{ abbreviation: "XX", label: "Changed in the web app" }] });
        await world().run(async (run) => {
          const d = await res(run, "barbara");
          const s = await d.refresh();
          expect(s?.outputs.identifiers).toEqual([{ abbreviation: "XX", label: "Changed in the web app" }]);
          expect(s?.inputs.identifiers).toEqual([{ abbreviation: "XX", label: "Changed in the web app" }]);
          expect((await d.preview(barbaraInputs)).op).toBe("update");
          const r = await d.up(barbaraInputs);
          expect(r.op).toBe("update");
          expect(r.outs.identifiers).toEqual([BL, INV]);
        });
        expect(idsOf(U.databaseAdmin)).toEqual([BL, INV]);
      });

      await step("updates in place (a label change, an identifier dropped)", async () => {
        const r = await world().run(async (run) =>
          (await res(run, "barbara")).up({ ...barbaraInputs, identifiers: [{ abbreviation: "BL", label: "B. Liskov" }] }),
        );
        expect(r.op).toBe("update");
        expect(r.id).toBe(`${ORG}/${U.databaseAdmin}`);
        expect(idsOf(U.databaseAdmin)).toEqual([{ abbreviation: "BL", label: "B. Liskov" }]);
      });

      await step(
        "replaces on a change of user id, email or organization (the old member's identifiers are cleared); delete clears them and leaves the membership",
        async () => {
          const KT = { abbreviation: "KT", label: "Ken Thompson" };
          const UNIX = { abbreviation: "UNIX", label: "Unix" };
          await world().run(async (run) => {
            const a = await res(run, "alan");
            const byId = await a.up({ organizationId: ORG, userId: U.aiAdmin, identifiers: [KT, UNIX] });
            expect(byId.op).toBe("replace");
            expect(byId.id).toBe(`${ORG}/${U.aiAdmin}`);

            const b = await res(run, "barbara");
            const byEmail = await b.up({
              organizationId: ORG,
              email: "margaret@northwind.example",
              identifiers: [{ abbreviation: "MH", label: "Margaret H." }],
            });
            expect(byEmail.op).toBe("replace");
            expect(byEmail.outs.userId).toBe(U.multiOrgMember);

            const p = await b.preview({ organizationId: SEEDED.subOrg, email: "margaret@northwind.example", identifiers: [] });
            expect(p.op).toBe("replace");
            expect(p.diff?.replaces).toEqual(["organizationId"]);

            expect(idsOf(U.aiAdmin)).toEqual([KT, UNIX]);
            expect(idsOf(U.member)).toEqual([]);
            expect(idsOf(U.multiOrgMember)).toEqual([{ abbreviation: "MH", label: "Margaret H." }]);
            expect(idsOf(U.databaseAdmin)).toEqual([]);
            // Margaret's identifiers in her other organization are another membership's.
            expect(store().members.get(SEEDED.subOrg, U.multiOrgMember).userIdentifiers).toEqual([
              { abbreviation: "MH", label: "Margaret Hamilton" },
            ]);
          });
          // Destroy is a run of its own, as the CLI makes it.
          await world().run(async (run) => (await res(run, "barbara")).destroy());
          expect(store().members.find(ORG, U.multiOrgMember)).toBeDefined();
          expect(idsOf(U.multiOrgMember)).toEqual([]);
        },
      );

      await step("refresh of a member removed behind its back drops it; delete of a member already gone succeeds", async () => {
        store().members.remove(ORG, U.aiAdmin);
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "alan");
          const kept = d.state;
          expect(await d.refresh()).toBeUndefined();
          d.state = kept; // as if the refresh had not run: delete must still succeed
          await d.destroy();
          expect(d.state).toBeUndefined();
        });
        // The drift found costs one read of the activity log, to name who made it (issue 27).
        expect(sent.all()).toEqual(["GetOrganizationEvents 200", "GetOrganizationUsers 200"]);
      });
    },
  );

  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world().run(async (run) => {
      expect(
        await failuresOf(run, { organizationId: ORG, identifiers: [AT, { abbreviation: "AT", label: "Another" }], userId: U.member }),
      ).toMatch(/identifiers: must not repeat an abbreviation/);
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, email: "alan@northwind.example", identifiers: [] })).toMatch(
        /userId: give exactly one of userId and email/,
      );
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, identifiers: [{ abbreviation: "AT" }] })).toMatch(
        /identifiers\.0\.label: /,
      );
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, identifiers: [{ ...AT, colour: "red" }] })).toMatch(
        /identifiers\.0: Unrecognized key: "colour"/,
      );
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, identifiers: "AT" })).toMatch(/identifiers: .*array/);
      expect(await failuresOf(run, { organizationId: "102", userId: U.member, identifiers: [] })).toMatch(/organizationId: /);

      const p = await (await res(run, "later")).preview({ organizationId: ORG, userId: UNKNOWN, identifiers: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("turns 403 and 404 into one clear line, and refuses someone who is not a member", async () => {
    await world().run(
      async (run) => {
        const err = await errorOf((await res(run, "denied")).up({ organizationId: ORG, userId: U.member, identifiers: [AT] }));
        expect(err.message).toMatch(
          /^creating UserIdentifiers of user 1003 in organization 102: the service answered 403 .*\(this needs org admin of organization 102, which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      const err = await errorOf((await res(run, "nowhere")).up({ organizationId: 999999, userId: U.member, identifiers: [] }));
      expect(err.message).toMatch(/^creating UserIdentifiers of user 1003 in organization 999999: the service answered 404 /);
      expect(err.message).not.toContain("\n");
      await expect((await res(run, "outsider")).up({ organizationId: ORG, email: "linus@example.com", identifiers: [] })).rejects.toThrow(
        /linus@example.com is not a member of organization 102; UserIdentifiers manages existing members only/,
      );
    });
  });
});
