/**
 * OrgMemberPermissions through the real plugin against the emulator: create (by email and by
 * user id), refresh, drift, update, replace, delete (also of a member already gone), check
 * failures, API errors and anti-lockout.
 *
 * No 422 test: the resource uses E18 (list members) and E22 (update member) only, and neither
 * has an operation-specific cap on API-created objects (the spec's only 422), so no operation
 * of this resource can answer 422.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { SEEDED } from "../../emulator";
import { CheckFailedError } from "../../harness/engineSteps";
import { UNKNOWN } from "../../harness/wire";
import { useResourceWorld } from "../support/providerWorld";
import { errorOf, SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const U = SEEDED.users;
const { world, store, record, res, failuresOf } = useResourceWorld("OrgMemberPermissions");
const permsOf = (userId: number) => [...store().members.get(ORG, userId).permissions].sort();

const alanInputs = { organizationId: ORG, email: "Alan@Northwind.Example", permissions: ["LEGAL_HOLD_ADMIN", "AI_ADMIN"] };
const barbaraInputs = { organizationId: ORG, userId: U.databaseAdmin, permissions: ["CLOUD_MANAGEMENT_ADMIN"] };
const francesInputs = { organizationId: ORG, userId: U.legalHoldAdmin, permissions: ["LEGAL_HOLD_ADMIN"] };

describe("OrgMemberPermissions", () => {
  it(
    "by email and by user id: created, refreshed, drifted, updated, replaced, deleted; members removed behind its back",
    SCENARIO,
    async () => {
      await step("creates by email (case-insensitive) and by user id, leaving identifiers and membership alone", async () => {
        const identifiersBefore = structuredClone(store().members.get(ORG, U.member).userIdentifiers);
        const sent = record();
        const [alan, barbara, frances] = await world().run(async (run) =>
          Promise.all([
            (await res(run, "alan")).up(alanInputs),
            (await res(run, "barbara")).up(barbaraInputs),
            (await res(run, "frances")).up(francesInputs),
          ]),
        );
        expect(alan.op).toBe("create");
        expect(alan.id).toBe(`${ORG}/${U.member}`);
        expect(alan.outs).toMatchObject({
          organizationId: ORG,
          userId: U.member,
          email: "alan@northwind.example",
          permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"],
        });
        expect(barbara.outs).toMatchObject({
          userId: U.databaseAdmin,
          email: "barbara@northwind.example",
          permissions: ["CLOUD_MANAGEMENT_ADMIN"],
        });
        expect(frances.outs.permissions).toEqual(["LEGAL_HOLD_ADMIN"]);
        expect(permsOf(U.member)).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
        expect(permsOf(U.databaseAdmin)).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
        expect(store().members.get(ORG, U.member).userIdentifiers).toEqual(identifiersBefore);
        expect(sent.writes()).toEqual(["PatchOrganizationUser 200", "PatchOrganizationUser 200"]); // Frances already held hers
      });

      await step("refresh with nothing changed changes nothing; the next up and a reordered or re-cased preview are the same", async () => {
        const before = world().states.get("OrgMemberPermissions/alan")!;
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "alan");
          const s = await d.refresh();
          expect(s?.outputs).toEqual(before.outputs);
          expect(s?.inputs).toMatchObject({
            organizationId: ORG,
            email: "alan@northwind.example",
            permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"],
          });
          expect((await d.up(alanInputs)).op).toBe("same");
          expect(
            (await d.preview({ ...alanInputs, email: "ALAN@northwind.example", permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] })).op,
          ).toBe("same");
          const b = await res(run, "barbara");
          expect((await b.refresh())?.outputs).toEqual(world().states.get("OrgMemberPermissions/barbara")!.outputs);
          expect((await b.up(barbaraInputs)).op).toBe("same");
        });
        expect(sent.all()).toEqual(["GetOrganizationUsers 200"]);
      });

      await step("finds drift made behind its back on refresh, and up puts it back", async () => {
        store().members.update(ORG, U.member, { permissions: ["ORG_ADMIN"] });
        await world().run(async (run) => {
          const d = await res(run, "alan");
          const s = await d.refresh();
          expect(s?.outputs.permissions).toEqual(["ORG_ADMIN"]);
          expect(s?.inputs.permissions).toEqual(["ORG_ADMIN"]);
          // Taking ORG_ADMIN from Alan is allowed: he is neither the key's user nor the last org admin.
          expect((await d.preview(alanInputs)).op).toBe("update");
          const r = await d.up(alanInputs);
          expect(r.op).toBe("update");
          expect(r.outs.permissions).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
        });
        expect(permsOf(U.member)).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
      });

      await step("updates in place", async () => {
        const r = await world().run(async (run) =>
          (await res(run, "barbara")).up({ ...barbaraInputs, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] }),
        );
        expect(r.op).toBe("update");
        expect(r.id).toBe(`${ORG}/${U.databaseAdmin}`);
        expect(r.outs.permissions).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
        expect(permsOf(U.databaseAdmin)).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
      });

      await step(
        "replaces on a change of email, user id or organization (the old member's permissions are emptied); delete empties them and leaves the membership",
        async () => {
          await world().run(async (run) => {
            const a = await res(run, "alan");
            const byEmail = await a.up({ organizationId: ORG, email: "grace@northwind.example", permissions: ["AI_ADMIN"] });
            expect(byEmail.op).toBe("replace");
            expect(byEmail.outs).toMatchObject({ userId: U.parentAdminUser, permissions: ["AI_ADMIN"] });

            const b = await res(run, "barbara");
            const byId = await b.up({ organizationId: ORG, userId: U.aiAdmin, permissions: ["AI_ADMIN", "CLOUD_MANAGEMENT_ADMIN"] });
            expect(byId.op).toBe("replace");
            expect(byId.id).toBe(`${ORG}/${U.aiAdmin}`);

            // Another organization is another member: a replacement (preview only, the key is not admin there).
            const p = await a.preview({ organizationId: SEEDED.subOrg, email: "grace@northwind.example", permissions: ["AI_ADMIN"] });
            expect(p.op).toBe("replace");
            expect(p.diff?.replaces).toEqual(["organizationId"]);

            expect(permsOf(U.parentAdminUser)).toEqual(["AI_ADMIN"]);
            expect(permsOf(U.member)).toEqual([]);
            expect(permsOf(U.aiAdmin)).toEqual(["AI_ADMIN", "CLOUD_MANAGEMENT_ADMIN"]);
            expect(permsOf(U.databaseAdmin)).toEqual([]);
          });
          // Destroy is a run of its own, as the CLI makes it.
          await world().run(async (run) => (await res(run, "alan")).destroy());
          expect(store().members.find(ORG, U.parentAdminUser)).toBeDefined();
          expect(permsOf(U.parentAdminUser)).toEqual([]);
          expect(world().states.get("OrgMemberPermissions/alan")).toBeUndefined();
        },
      );

      await step("refresh of a member removed behind its back drops it; delete of a member already gone succeeds", async () => {
        store().members.remove(ORG, U.aiAdmin);
        store().members.remove(ORG, U.legalHoldAdmin);
        const sent = record();
        await world().run(async (run) => {
          expect(await (await res(run, "barbara")).refresh()).toBeUndefined();
          const f = await res(run, "frances");
          await f.destroy();
          expect(f.state).toBeUndefined();
        });
        // The drift found costs one read of the activity log, to name who made it (issue 27).
        expect(sent.all()).toEqual(["GetOrganizationEvents 200", "GetOrganizationUsers 200"]);
      });
    },
  );

  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world().run(async (run) => {
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, email: "alan@northwind.example", permissions: [] })).toMatch(
        /userId: give exactly one of userId and email/,
      );
      expect(await failuresOf(run, { organizationId: ORG, permissions: [] })).toMatch(/userId: give exactly one of userId and email/);
      const text = await failuresOf(run, { organizationId: ORG, userId: U.member, permissions: ["AI_ADMIN", "SUPERUSER"], colour: "blue" });
      expect(text).toMatch(/permissions\.1: .*ORG_ADMIN/); // the bad enum, with the allowed values
      expect(text).toMatch(/Unrecognized key: "colour"/);
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member, permissions: ["AI_ADMIN", "AI_ADMIN"] })).toMatch(
        /permissions: must not repeat an item/,
      );
      expect(await failuresOf(run, { organizationId: ORG, email: "not-an-email", permissions: [] })).toMatch(
        /email: must be an email address/,
      );
      expect(await failuresOf(run, { organizationId: 0, userId: -1, permissions: [] })).toMatch(
        /organizationId: must be a positive integer[\s\S]*userId: must be a positive integer/,
      );
      expect(await failuresOf(run, { organizationId: ORG, userId: U.member })).toMatch(/permissions/);

      const later = await res(run, "later");
      const p = await later.preview({ organizationId: ORG, email: UNKNOWN, permissions: UNKNOWN });
      expect(p.check.failures).toEqual([]);
      // The engine's own step fails the same way on check failures.
      await expect(later.up({ organizationId: ORG, email: "x@y.example", userId: 5, permissions: [] })).rejects.toBeInstanceOf(
        CheckFailedError,
      );
    });
  });

  it("turns 403 and 404 into one clear line, and refuses to add someone who is not a member", async () => {
    await world().run(
      async (run) => {
        const d = await res(run, "denied");
        const err = await errorOf(d.up({ organizationId: ORG, userId: U.member, permissions: ["AI_ADMIN"] }));
        expect(err.message).toMatch(
          /^creating OrgMemberPermissions of user 1003 in organization 102: the service answered 403 .*\(this needs org admin of organization 102, which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
        expect(d.state).toBeUndefined();
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      const err = await errorOf(
        (await res(run, "nowhere")).up({ organizationId: 999999, email: "alan@northwind.example", permissions: [] }),
      );
      expect(err.message).toMatch(
        /^creating OrgMemberPermissions of alan@northwind.example in organization 999999: the service answered 404 /,
      );
      expect(err.message).not.toContain("\n");
      await expect(
        (await res(run, "outsider")).up({ organizationId: ORG, userId: U.unaffiliated, permissions: ["AI_ADMIN"] }),
      ).rejects.toThrow(
        /user 1011 is not a member of organization 102; OrgMemberPermissions manages existing members only \(use OrgMember to add people\)/,
      );
    });
    expect(store().members.find(ORG, U.unaffiliated)).toBeUndefined();
  });
});

describe("OrgMemberPermissions anti-lockout", () => {
  it("refuses at preview to take ORG_ADMIN from the key's own user; allowAdminRemoval lets it through", async () => {
    const ada = { organizationId: ORG, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] };
    // Give the key its role back, also when the test fails half-way.
    onTestFinished(() => {
      store().members.update(ORG, U.orgAdmin, { permissions: ["ORG_ADMIN"] });
    });
    const sent = record();
    await world().run(async (run) => {
      expect((await (await res(run, "ada")).up(ada)).outs.permissions).toEqual(["ORG_ADMIN"]);
    });
    expect(sent.all()).toEqual(["GetOrganizationUsers 200"]); // already so: nothing written

    // Each Pulumi operation below is a run of its own, as the CLI makes it.
    await world().run(async (run) => {
      const d = await res(run, "ada");
      await expect(d.preview({ ...ada, permissions: ["AI_ADMIN"] })).rejects.toThrow(
        /^updating OrgMemberPermissions of ada@northwind.example in organization 102: refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind.example> \(user 1001\), the user of the API key in use.*allowAdminRemoval: true/,
      );
      // A value not known yet at preview is not refused: the guard runs again at update with the real value.
      expect((await d.preview({ ...ada, permissions: UNKNOWN })).op).toBe("update");
      expect((await d.preview({ ...ada, permissions: ["AI_ADMIN", UNKNOWN] })).op).toBe("update");
    });
    await world().run(async (run) => {
      const d = await res(run, "ada");
      await expect(d.destroy()).rejects.toThrow(/deleting OrgMemberPermissions .*refused: it would take ORG_ADMIN/);
      expect(d.state).toBeDefined();
    });
    expect(permsOf(U.orgAdmin)).toEqual(["ORG_ADMIN"]);
    expect(sent.writes()).toEqual([]);

    await world().run(async (run) => {
      const d = await res(run, "ada");
      const allowed = { ...ada, permissions: ["AI_ADMIN"], allowAdminRemoval: true };
      expect((await d.preview(allowed)).op).toBe("update");
      const r = await d.up(allowed);
      expect(r.outs.permissions).toEqual(["AI_ADMIN"]);
    });
    expect(permsOf(U.orgAdmin)).toEqual(["AI_ADMIN"]);
  });

  it("refuses to take ORG_ADMIN from the last org admin, even with an organization key", async () => {
    const sent = record();
    await world().run(
      async (run) => {
        const d = await res(run, "ada-by-org-key");
        await d.up({ organizationId: ORG, userId: U.orgAdmin, permissions: ["ORG_ADMIN"] });
        await expect(d.preview({ organizationId: ORG, userId: U.orgAdmin, permissions: [] })).rejects.toThrow(
          /refused: Ada Lovelace <ada@northwind.example> \(user 1001\) is the last org admin of organization 102/,
        );
      },
      { key: world().emu.keys.orgKey },
    );
    expect(permsOf(U.orgAdmin)).toEqual(["ORG_ADMIN"]);
    expect(sent.writes()).toEqual([]); // already so: adopted as it is
  });
});
