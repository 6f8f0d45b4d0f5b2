/**
 * Invitation through the real plugin against the emulator: create, adoption of seeded
 * invitations, refresh, drift, update (re-invite), replace, delete (also of one already gone),
 * check failures, API errors, and the lifecycle: pending → expired → re-sent, re-sent on
 * purpose by resendTrigger, accepted (delete then leaves the membership).
 *
 * No 422 test: the resource uses E13, E14, E15 and E19; the emulator (like the spec, which
 * names a cap only for datasets) has no cap on invitations, so no operation of this resource
 * can answer 422.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { programFolder, useResourceWorld } from "../support/providerWorld";
import { errorOf, SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const { world, store, record, res, failuresOf } = useResourceWorld("Invitation");
const invitationOf = (email: string) => store().invitations.find(ORG, email);

const ZOE = "zoe.invitee@example.com";
const zoeInputs = {
  organizationId: ORG,
  email: "Zoe.Invitee@Example.com",
  firstName: "Zoe",
  lastName: "Invitee",
  permissions: ["LEGAL_HOLD_ADMIN", "AI_ADMIN"],
};

describe("Invitation", () => {
  it("a new invitation: invited, refreshed, drifted, re-invited on update, replaced, deleted", SCENARIO, async () => {
    await step("create: invites a new email (pending)", async () => {
      const sent = record();
      const zoe = await world().run(async (run) => (await res(run, "zoe")).up(zoeInputs));
      expect(zoe.op).toBe("create");
      expect(zoe.id).toBe(`${ORG}/${ZOE}`);
      expect(zoe.outs).toMatchObject({
        email: ZOE,
        status: "pending",
        userId: null,
        adopted: false,
        permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"],
      });
      expect(Date.parse(zoe.outs.expiration)).toBeGreaterThan(Date.now());
      expect(invitationOf(ZOE)).toMatchObject({ firstName: "Zoe", lastName: "Invitee" });
      expect(invitationOf(ZOE)!.permissions.sort()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
      expect(sent.writes()).toEqual(["PostOrganizationUsers 200"]);
    });

    await step("refresh with nothing changed changes nothing; the next up and a re-cased, reordered preview are the same", async () => {
      const before = world().states.get("Invitation/zoe")!;
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "zoe");
        const s = await d.refresh();
        expect(s?.outputs).toEqual(before.outputs);
        expect((await d.up(zoeInputs)).op).toBe("same");
        expect((await d.preview({ ...zoeInputs, email: ZOE, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] })).op).toBe("same");
      });
      expect(sent.all()).toEqual(["GetOrganizationInvitations 200", "GetOrganizationUsers 200"]); // reads only
    });

    await step("refresh finds drift made behind its back (re-invited with other permissions), and up puts it back", async () => {
      store().invitations.delete(ORG, ZOE);
      store().invitations.create(ORG, { email: ZOE, firstName: "Zoe", permissions: ["ORG_ADMIN"] }, SEEDED.users.orgAdmin);
      await world().run(async (run) => {
        const d = await res(run, "zoe");
        const s = await d.refresh();
        expect(s?.outputs).toMatchObject({ status: "pending", permissions: ["ORG_ADMIN"] });
        expect(s?.inputs.permissions).toEqual(["ORG_ADMIN"]);
        expect((await d.preview(zoeInputs)).op).toBe("update");
        const r = await d.up(zoeInputs);
        expect(r.op).toBe("update");
        expect(r.outs).toMatchObject({ status: "pending", permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] });
      });
      expect(invitationOf(ZOE)!.permissions.sort()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
    });

    await step("update in place: new permissions re-invite (the API cannot edit an invitation)", async () => {
      const sent = record();
      const r = await world().run(async (run) => (await res(run, "zoe")).up({ ...zoeInputs, permissions: ["AI_ADMIN"] }));
      expect(r.op).toBe("update");
      expect(r.id).toBe(`${ORG}/${ZOE}`);
      expect(r.outs).toMatchObject({ status: "pending", permissions: ["AI_ADMIN"], adopted: false });
      expect(invitationOf(ZOE)!.permissions).toEqual(["AI_ADMIN"]);
      expect(sent.writes()).toEqual(["DeleteOrganizationInvitation 204", "PostOrganizationUsers 200"]);
    });

    await step("replace on a change of email or organization; delete removes the invitation", async () => {
      const other = "zoe.other@example.com";
      await world().run(async (run) => {
        const d = await res(run, "zoe");
        const r = await d.up({ ...zoeInputs, email: other, permissions: ["AI_ADMIN"] });
        expect(r.op).toBe("replace");
        expect(r.outs).toMatchObject({ email: other, status: "pending", adopted: false });
        const p = await d.preview({ ...zoeInputs, organizationId: SEEDED.subOrg, email: other });
        expect(p.op).toBe("replace");
        expect(p.diff?.replaces).toEqual(["organizationId"]);
      });
      expect(invitationOf(ZOE)).toBeUndefined();
      expect(invitationOf(other)).toBeDefined();

      await world().run(async (run) => (await res(run, "zoe")).destroy());
      expect(invitationOf(other)).toBeUndefined();
      expect(store().users.findByEmail(other)).toBeUndefined();
    });
  });

  it("adopts a seeded pending invitation without a write, and a seeded expired one with one re-send", async () => {
    const sent = record();
    const [hire, late] = await world().run(async (run) =>
      Promise.all([
        (await res(run, "hire")).up({ organizationId: ORG, email: SEEDED.invitations.pending }),
        (await res(run, "late")).up({ organizationId: ORG, email: SEEDED.invitations.expired }),
      ]),
    );
    expect(hire.outs).toMatchObject({ status: "pending", adopted: true, permissions: [] });
    expect(late.outs).toMatchObject({ status: "pending", adopted: true, permissions: ["LEGAL_HOLD_ADMIN"] });
    expect(store().invitations.isExpired(invitationOf(SEEDED.invitations.expired)!)).toBe(false);
    expect(sent.writes()).toEqual(["PostOrganizationInvitationResend 200"]); // no invitation sent; the expired one re-sent
  });

  it("refresh of an invitation deleted behind its back drops it; delete of one already gone succeeds, deleting nothing", async () => {
    const gone = "gone.soon@example.com";
    store().invitations.create(ORG, { email: gone, permissions: [] }, SEEDED.users.orgAdmin);
    await world().run(async (run) => (await res(run, "gone")).up({ organizationId: ORG, email: gone }));
    store().invitations.delete(ORG, gone);
    const sent = record();
    await world().run(async (run) => {
      const d = await res(run, "gone");
      const kept = d.state;
      expect(await d.refresh()).toBeUndefined();
      d.state = kept; // as if the refresh had not run: delete must still succeed
      await d.destroy();
      expect(d.state).toBeUndefined();
    });
    // The drift found costs one read of the activity log, to name who made it (issue 27).
    expect(sent.all()).toEqual(["GetOrganizationEvents 200", "GetOrganizationInvitations 200", "GetOrganizationUsers 200"]);
  });
  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world().run(async (run) => {
      expect(await failuresOf(run, { organizationId: ORG, email: "not an email" })).toMatch(/email: must be an email address/);
      expect(await failuresOf(run, { organizationId: ORG, email: "a@b.example", permissions: ["AI_ADMIN", "AI_ADMIN"] })).toMatch(
        /permissions: must not repeat an item/,
      );
      expect(await failuresOf(run, { organizationId: ORG, email: "a@b.example", permissions: ["OWNER"] })).toMatch(
        /permissions\.0: .*ORG_ADMIN/,
      );
      const more = await failuresOf(run, {
        organizationId: -1,
        email: "a@b.example",
        resendTrigger: 7,
        resendWhenExpired: "yes",
        userId: 5,
      });
      expect(more).toMatch(/organizationId: must be a positive integer organization id/);
      expect(more).toMatch(/resendTrigger: .*string/);
      expect(more).toMatch(/resendWhenExpired: .*boolean/);
      expect(more).toMatch(/Unrecognized key: "userId"/);
      expect(await failuresOf(run, { organizationId: ORG })).toMatch(/email: /);

      const p = await (
        await res(run, "later")
      ).preview({ organizationId: ORG, email: UNKNOWN, permissions: UNKNOWN, resendTrigger: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("refuses names with control characters at check, naming the field, the character and the rule; sends nothing", async () => {
    const sent = record();
    await world().run(
      async (run) => {
        const bad = {
          NUL: "Ada\u0000",
          newline: "Ada\nLovelace",
          tab: "Ada\t",
          NEL: "Ada\u0085",
          RLO: "Ada\u202Egnp.exe",
          LRI: "\u2066Ada",
        };
        const codes = { NUL: "U+0000", newline: "U+000A", tab: "U+0009", NEL: "U+0085", RLO: "U+202E", LRI: "U+2066" };
        for (const [what, name] of Object.entries(bad)) {
          const code = codes[what as keyof typeof codes];
          expect(await failuresOf(run, { organizationId: ORG, email: "ivy@example.com", firstName: name }), what).toMatch(
            new RegExp(
              `^firstName: must not contain control characters \\(found ${code.replace("+", "\\+")} at character \\d+\\): .*bidirectional control such as U\\+202E$`,
            ),
          );
          expect(await failuresOf(run, { organizationId: ORG, email: "ivy@example.com", lastName: name }), what).toMatch(
            /^lastName: must not contain/,
          );
        }
        // The other ways to invite someone keep the same rule.
        expect(
          await failuresOf(run, { organizationId: ORG, email: "ivy@example.com", lastName: bad.newline }, undefined, "OrgMember"),
        ).toMatch(/^lastName: must not contain control characters \(found U\+000A at character 4\)/);
        const roster = { organizationId: ORG, mode: "additive", members: { "ivy@example.com": { firstName: bad.RLO } } };
        expect(await failuresOf(run, roster, undefined, "OrganizationMembers")).toMatch(
          /^members\.ivy@example\.com\.firstName: must not contain control characters \(found U\+202E at character 4\)/,
        );
        // Letters of any script, accents, spaces and apostrophes are names.
        expect(
          await failuresOf(run, { organizationId: ORG, email: "ivy@example.com", firstName: "Zoë Ångström-O'Neil", lastName: "山田 太郎" }),
        ).toBe("");
        await expect((await res(run, "rlo")).up({ organizationId: ORG, email: "ivy@example.com", firstName: bad.RLO })).rejects.toThrow(
          /firstName: must not contain control characters/,
        );
      },
      { cwd: programFolder() },
    );
    expect(sent.writes()).toEqual([]);
    expect(store().invitations.find(ORG, "ivy@example.com")).toBeUndefined();
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world().run(
      async (run) => {
        const err = await errorOf((await res(run, "denied")).up({ organizationId: ORG, email: "someone@example.com" }));
        expect(err.message).toMatch(
          /^creating Invitation of someone@example.com to organization 102: the service answered 403 .*\(this needs org admin of organization 102, which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      const err = await errorOf((await res(run, "nowhere")).up({ organizationId: 999999, email: "someone@example.com" }));
      expect(err.message).toMatch(
        /^creating Invitation of someone@example.com to organization 999999: the service answered 404 .*organization 999999/,
      );
      expect(err.message).not.toContain("\n");
    });
    expect(invitationOf("someone@example.com")).toBeUndefined();
  });
});

describe("Invitation lifecycle", () => {
  it("its expiration is judged by the service's clock: expired by this machine's only, it is not re-sent", async () => {
    const EVE = "eve.clock@example.com";
    const eve = { organizationId: ORG, email: EVE, permissions: ["AI_ADMIN"] };
    // Sent when the service's clock was 15 days behind this machine's: it expires (14 days) before this machine's now.
    store().clock.advance(-15 * 86_400_000);
    try {
      await world().run(async (run) => expect((await (await res(run, "eve")).up(eve)).outs.status).toBe("pending"));
      expect(Date.parse(invitationOf(EVE)!.expiration)).toBeLessThan(Date.now());
      const sent = record();
      await world().run(async (run) => expect((await (await res(run, "eve")).up(eve)).op).toBe("same"));
      expect(sent.writes()).toEqual([]);
    } finally {
      store().clock.advance(-store().clock.offsetMs);
    }
  });

  it(
    "pending → expired → re-sent; re-sent on purpose by resendTrigger; accepted, then deleted leaving the membership",
    SCENARIO,
    async () => {
      const IVY = "ivy.lifecycle@example.com";
      const ivy = { organizationId: ORG, email: IVY, permissions: ["AI_ADMIN"] };

      await step("create: pending", async () => {
        const first = await world().run(async (run) => (await res(run, "ivy")).up(ivy));
        expect(first.outs.status).toBe("pending");
      });

      await step(
        "expired behind its back: refresh shows expired, preview an update, up re-sends it (unless resendWhenExpired is false)",
        async () => {
          store().invitations.expire(ORG, IVY);
          const sent = record();
          await world().run(async (run) => {
            const d = await res(run, "ivy");
            const s = await d.refresh();
            expect(s?.outputs.status).toBe("expired");
            expect(Date.parse(s!.outputs.expiration)).toBeLessThan(Date.now());
            expect((await d.preview(ivy)).op).toBe("update");
            expect(sent.writes()).toEqual([]); // preview sends nothing
            // resendWhenExpired: false leaves an expired invitation alone.
            const kept = await d.up({ ...ivy, resendWhenExpired: false });
            expect(kept.outs.status).toBe("expired");
            expect((await d.preview({ ...ivy, resendWhenExpired: false })).op).toBe("same");
            expect(sent.writes()).toEqual([]);
            const r = await d.up(ivy);
            expect(r.op).toBe("update");
            expect(r.outs.status).toBe("pending");
            expect(Date.parse(r.outs.expiration)).toBeGreaterThan(Date.now());
          });
          expect(sent.writes()).toEqual(["PostOrganizationInvitationResend 200"]);
          expect(store().invitations.isExpired(invitationOf(IVY)!)).toBe(false);
        },
      );

      await step("a new resendTrigger re-sends the pending invitation on purpose, once", async () => {
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "ivy");
          expect((await d.preview({ ...ivy, resendTrigger: "reminder-1" })).op).toBe("update");
          const r = await d.up({ ...ivy, resendTrigger: "reminder-1" });
          expect(r.op).toBe("update");
          expect(r.outs).toMatchObject({ status: "pending", resendTrigger: "reminder-1" });
          expect((await d.up({ ...ivy, resendTrigger: "reminder-1" })).op).toBe("same");
        });
        expect(sent.writes()).toEqual(["PostOrganizationInvitationResend 200"]);
      });

      await step("accepted behind its back: status accepted; delete leaves the membership", async () => {
        store().members.acceptInvitation(ORG, IVY);
        const userId = store().users.findByEmail(IVY)!.id;
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "ivy");
          const s = await d.refresh();
          expect(s?.outputs).toMatchObject({ status: "accepted", userId, expiration: null });
          // Once accepted the invitation's work is done: nothing to update, nothing to re-send.
          expect((await d.preview(ivy)).op).toBe("same");
          expect((await d.preview({ ...ivy, permissions: ["ORG_ADMIN"], resendTrigger: "again" })).op).toBe("same");
        });
        // Destroy is a run of its own, as the CLI makes it.
        await world().run(async (run) => {
          await (await res(run, "ivy")).destroy();
          await run.plugin.waitForLog(/was accepted; deleting the Invitation leaves ivy.lifecycle@example.com a member/);
        });
        expect(sent.writes()).toEqual([]);
        expect(store().members.find(ORG, userId)?.permissions).toEqual(["AI_ADMIN"]);
      });
    },
  );
});
