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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { startProviderWorld, type ProviderWorld, type Run } from "../support/providerWorld";

const KIND = "Invitation";
const ORG = SEEDED.org;
let world: ProviderWorld;

beforeAll(async () => {
  world = await startProviderWorld();
});
afterAll(async () => {
  await world?.close();
});

const store = () => world.emu.store;
const calls = (op: string) => world.emu.traffic.log.list(op).length;
const res = (run: Run, name: string) => run.resource(KIND, name);
const invitationOf = (email: string) => store().findInvitation(ORG, email);

async function failuresOf(run: Run, inputs: Record<string, unknown>): Promise<string> {
  const d = await res(run, "bad");
  const { failures } = await run.plugin.check(d.urn, {}, { __provider: d.provider, ...inputs });
  return failures.map((f) => f.reason).join("\n");
}

const ZOE = "zoe.invitee@example.com";
const zoeInputs = { organizationId: ORG, email: "Zoe.Invitee@Example.com", firstName: "Zoe", lastName: "Invitee", permissions: ["LEGAL_HOLD_ADMIN", "AI_ADMIN"] };

describe("Invitation", () => {
  it("invites a new email (pending), adopts a seeded pending invitation, and adopts and re-sends a seeded expired one", async () => {
    const adds = calls("PostOrganizationUsers");
    const resends = calls("PostOrganizationInvitationResend");
    const [zoe, hire, late] = await world.run(async (run) =>
      Promise.all([
        (await res(run, "zoe")).up(zoeInputs),
        (await res(run, "hire")).up({ organizationId: ORG, email: SEEDED.invitations.pending }),
        (await res(run, "late")).up({ organizationId: ORG, email: SEEDED.invitations.expired }),
      ]),
    );
    expect(zoe.op).toBe("create");
    expect(zoe.id).toBe(`${ORG}/${ZOE}`);
    expect(zoe.outs).toMatchObject({ email: ZOE, status: "pending", userId: null, adopted: false, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] });
    expect(Date.parse(zoe.outs.expiration)).toBeGreaterThan(Date.now());
    expect(invitationOf(ZOE)).toMatchObject({ firstName: "Zoe", lastName: "Invitee" });
    expect(invitationOf(ZOE)!.permissions.sort()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);

    expect(hire.outs).toMatchObject({ status: "pending", adopted: true, permissions: [] });
    expect(late.outs).toMatchObject({ status: "pending", adopted: true, permissions: ["LEGAL_HOLD_ADMIN"] });
    expect(store().isExpired(invitationOf(SEEDED.invitations.expired)!)).toBe(false);
    expect(calls("PostOrganizationUsers")).toBe(adds + 1); // only Zoe was invited
    expect(calls("PostOrganizationInvitationResend")).toBe(resends + 1); // the expired one was re-sent
  });

  it("refresh with nothing changed changes nothing; the next up and a re-cased, reordered preview are the same", async () => {
    const before = world.states.get(`${KIND}/zoe`)!;
    const log = world.emu.traffic.log.list().length;
    await world.run(async (run) => {
      const d = await res(run, "zoe");
      const s = await d.refresh();
      expect(s?.outputs).toEqual(before.outputs);
      expect((await d.up(zoeInputs)).op).toBe("same");
      expect((await d.preview({ ...zoeInputs, email: ZOE, permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] })).op).toBe("same");
    });
    // Only reads were sent.
    expect(world.emu.traffic.log.list().slice(log).every((e) => e.operation?.startsWith("Get"))).toBe(true);
  });

  it("finds drift made behind its back on refresh (re-invited with other permissions), and up puts it back", async () => {
    store().deleteInvitation(ORG, ZOE);
    store().createInvitation(ORG, { email: ZOE, firstName: "Zoe", permissions: ["ORG_ADMIN"] }, SEEDED.users.orgAdmin);
    await world.run(async (run) => {
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

  it("updates in place: new permissions re-invite (the API cannot edit an invitation)", async () => {
    const deletes = calls("DeleteOrganizationInvitation");
    const r = await world.run(async (run) => (await res(run, "zoe")).up({ ...zoeInputs, permissions: ["AI_ADMIN"] }));
    expect(r.op).toBe("update");
    expect(r.id).toBe(`${ORG}/${ZOE}`);
    expect(r.outs).toMatchObject({ status: "pending", permissions: ["AI_ADMIN"], adopted: false });
    expect(invitationOf(ZOE)!.permissions).toEqual(["AI_ADMIN"]);
    expect(calls("DeleteOrganizationInvitation")).toBe(deletes + 1);
  });

  it("replaces on a change of email or organization, and delete removes the invitation", async () => {
    const other = "zoe.other@example.com";
    await world.run(async (run) => {
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

    await world.run(async (run) => (await res(run, "zoe")).destroy());
    expect(invitationOf(other)).toBeUndefined();
    expect(store().findUserByEmail(other)).toBeUndefined();
  });

  it("refresh of an invitation deleted behind its back drops it; delete of one already gone succeeds", async () => {
    store().deleteInvitation(ORG, SEEDED.invitations.pending);
    const deletes = calls("DeleteOrganizationInvitation");
    await world.run(async (run) => {
      const d = await res(run, "hire");
      const kept = d.state;
      expect(await d.refresh()).toBeUndefined();
      d.state = kept; // as if the refresh had not run: delete must still succeed
      await d.destroy();
      expect(d.state).toBeUndefined();
    });
    expect(calls("DeleteOrganizationInvitation")).toBe(deletes);
  });

  it("refuses bad input at check, naming the field and the rule; lets preview unknowns through", async () => {
    await world.run(async (run) => {
      expect(await failuresOf(run, { organizationId: ORG, email: "not an email" })).toMatch(/email: must be an email address/);
      expect(await failuresOf(run, { organizationId: ORG, email: "a@b.example", permissions: ["AI_ADMIN", "AI_ADMIN"] })).toMatch(
        /permissions: must not repeat an item/,
      );
      expect(await failuresOf(run, { organizationId: ORG, email: "a@b.example", permissions: ["OWNER"] })).toMatch(/permissions\.0: .*ORG_ADMIN/);
      const more = await failuresOf(run, { organizationId: -1, email: "a@b.example", resendTrigger: 7, resendWhenExpired: "yes", userId: 5 });
      expect(more).toMatch(/organizationId: must be a positive integer organization id/);
      expect(more).toMatch(/resendTrigger: .*string/);
      expect(more).toMatch(/resendWhenExpired: .*boolean/);
      expect(more).toMatch(/Unrecognized key: "userId"/);
      expect(await failuresOf(run, { organizationId: ORG })).toMatch(/email: /);

      const p = await (await res(run, "later")).preview({ organizationId: ORG, email: UNKNOWN, permissions: UNKNOWN, resendTrigger: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world.run(
      async (run) => {
        const err = await (await res(run, "denied")).up({ organizationId: ORG, email: "someone@example.com" }).then(() => new Error("expected a failure"), (e: Error) => e);
        expect(err.message).toMatch(
          /^creating Invitation of someone@example.com to organization 102: the service answered 403 .*\(this needs org admin of organization 102, which the API key in use lacks\)$/,
        );
        expect(err.message).not.toContain("\n");
      },
      { key: world.emu.keys.member },
    );
    await world.run(async (run) => {
      const err = await (await res(run, "nowhere")).up({ organizationId: 999999, email: "someone@example.com" }).then(() => new Error("expected a failure"), (e: Error) => e);
      expect(err.message).toMatch(/^creating Invitation of someone@example.com to organization 999999: the service answered 404 .*organization 999999/);
      expect(err.message).not.toContain("\n");
    });
    expect(invitationOf("someone@example.com")).toBeUndefined();
  });
});

describe("Invitation lifecycle", () => {
  const IVY = "ivy.lifecycle@example.com";
  const ivy = { organizationId: ORG, email: IVY, permissions: ["AI_ADMIN"] };

  it("invite → pending; expired behind its back → refresh shows expired → preview shows update → up re-sends → pending", async () => {
    const first = await world.run(async (run) => (await res(run, "ivy")).up(ivy));
    expect(first.outs.status).toBe("pending");

    store().expireInvitation(ORG, IVY);
    const resends = calls("PostOrganizationInvitationResend");
    await world.run(async (run) => {
      const d = await res(run, "ivy");
      const s = await d.refresh();
      expect(s?.outputs.status).toBe("expired");
      expect(Date.parse(s!.outputs.expiration)).toBeLessThan(Date.now());
      expect((await d.preview(ivy)).op).toBe("update");
      expect(calls("PostOrganizationInvitationResend")).toBe(resends); // preview sends nothing
      // resendWhenExpired: false leaves an expired invitation alone.
      const kept = await d.up({ ...ivy, resendWhenExpired: false });
      expect(kept.outs.status).toBe("expired");
      expect((await d.preview({ ...ivy, resendWhenExpired: false })).op).toBe("same");
      expect(calls("PostOrganizationInvitationResend")).toBe(resends);
      const r = await d.up(ivy);
      expect(r.op).toBe("update");
      expect(r.outs.status).toBe("pending");
      expect(Date.parse(r.outs.expiration)).toBeGreaterThan(Date.now());
    });
    expect(calls("PostOrganizationInvitationResend")).toBe(resends + 1);
    expect(store().isExpired(invitationOf(IVY)!)).toBe(false);
  });

  it("a new resendTrigger re-sends a pending invitation on purpose, once", async () => {
    const resends = calls("PostOrganizationInvitationResend");
    await world.run(async (run) => {
      const d = await res(run, "ivy");
      expect((await d.preview({ ...ivy, resendTrigger: "reminder-1" })).op).toBe("update");
      const r = await d.up({ ...ivy, resendTrigger: "reminder-1" });
      expect(r.op).toBe("update");
      expect(r.outs).toMatchObject({ status: "pending", resendTrigger: "reminder-1" });
      expect((await d.up({ ...ivy, resendTrigger: "reminder-1" })).op).toBe("same");
    });
    expect(calls("PostOrganizationInvitationResend")).toBe(resends + 1);
  });

  it("accepted behind its back → status accepted; delete leaves the membership", async () => {
    store().acceptInvitation(ORG, IVY);
    const userId = store().findUserByEmail(IVY)!.id;
    await world.run(async (run) => {
      const d = await res(run, "ivy");
      const s = await d.refresh();
      expect(s?.outputs).toMatchObject({ status: "accepted", userId, expiration: null });
      // Once accepted the invitation's work is done: nothing to update, nothing to re-send.
      expect((await d.preview(ivy)).op).toBe("same");
      expect((await d.preview({ ...ivy, permissions: ["ORG_ADMIN"], resendTrigger: "again" })).op).toBe("same");
      await d.destroy();
      await run.plugin.waitForLog(/was accepted; deleting the Invitation leaves ivy.lifecycle@example.com a member/);
    });
    expect(store().findMembership(ORG, userId)?.permissions).toEqual(["AI_ADMIN"]);
  });
});
