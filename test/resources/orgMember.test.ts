/**
 * OrgMember through the real plugin against the emulator: create (invite, add, adopt), refresh,
 * drift, update, replace, delete, check failures, API errors, the invitation lifecycle and
 * anti-lockout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { startProviderWorld, type ProviderWorld } from "../support/providerWorld";

const ORG = SEEDED.org;
let world: ProviderWorld;

beforeAll(async () => {
  world = await startProviderWorld();
});
afterAll(async () => {
  await world?.close();
});

const store = () => world.emu.store;
const memberEmails = () => store().membersOf(ORG).map((m) => store().user(m.userId).email.toLowerCase());
const calls = (op: string) => world.emu.traffic.log.list(op).length;

describe("OrgMember", () => {
  it("invites a new email, and lower-cases it", async () => {
    const r = await world.run(async (run) => (await run.resource("OrgMember", "newcomer")).up({ organizationId: ORG, email: "Zoe.Newcomer@Example.com", permissions: ["AI_ADMIN"] }));
    expect(r.op).toBe("create");
    expect(r.outs).toMatchObject({ email: "zoe.newcomer@example.com", status: "invited", userId: null, adopted: false, permissions: ["AI_ADMIN"] });
    expect(Date.parse(r.outs.invitationExpiration)).toBeGreaterThan(Date.now());
    expect(store().findInvitation(ORG, "zoe.newcomer@example.com")).toBeDefined();
  });

  it("adds an existing platform user as an active member with permissions and identifiers", async () => {
    const r = await world.run(async (run) =>
      (await run.resource("OrgMember", "linus")).up({
        organizationId: ORG, email: "linus@example.com", permissions: ["CLOUD_MANAGEMENT_ADMIN"],
        userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }],
      }),
    );
    expect(r.outs).toMatchObject({ status: "active", userId: SEEDED.users.unaffiliated, adopted: false, permissions: ["CLOUD_MANAGEMENT_ADMIN"] });
    const m = store().membership(ORG, SEEDED.users.unaffiliated);
    expect(m.permissions).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
    expect(m.userIdentifiers).toEqual([{ abbreviation: "LT", label: "Linus Torvalds" }]);
  });

  it("adopts an existing member instead of failing, and leaves unmanaged fields alone", async () => {
    const before = structuredClone(store().membership(ORG, SEEDED.users.member));
    const patches = calls("PatchOrganizationUser");
    const r = await world.run(async (run) => (await run.resource("OrgMember", "alan")).up({ organizationId: ORG, email: "ALAN@northwind.example" }));
    expect(r.outs).toMatchObject({ status: "active", adopted: true, userId: SEEDED.users.member });
    expect(store().membership(ORG, SEEDED.users.member)).toEqual(before);
    expect(calls("PatchOrganizationUser")).toBe(patches);
  });

  it("refresh with nothing changed changes nothing, and the next up is a no-op", async () => {
    const before = world.states.get("OrgMember/linus")!.outputs;
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "linus");
      const s = await d.refresh();
      expect(s?.outputs).toEqual(before);
      const again = await d.up({ organizationId: ORG, email: "linus@example.com", permissions: ["CLOUD_MANAGEMENT_ADMIN"], userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }] });
      expect(again.op).toBe("same");
    });
  });

  it("a reordered or re-cased input is not a change", async () => {
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "linus");
      const p = await d.preview({ organizationId: ORG, email: "Linus@Example.com", permissions: ["CLOUD_MANAGEMENT_ADMIN"], userIdentifiers: [{ label: "Linus Torvalds", abbreviation: "LT" }] });
      expect(p.op).toBe("same");
    });
  });

  it("finds drift made behind its back on refresh, and up puts it back", async () => {
    store().updateMember(ORG, SEEDED.users.unaffiliated, { permissions: ["ORG_ADMIN", "AI_ADMIN"] });
    const inputs = { organizationId: ORG, email: "linus@example.com", permissions: ["CLOUD_MANAGEMENT_ADMIN"], userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }] };
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "linus");
      const s = await d.refresh();
      expect(s?.outputs.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
      expect(s?.inputs.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
      const p = await d.preview(inputs);
      expect(p.op).toBe("update");
      const r = await d.up(inputs);
      expect(r.op).toBe("update");
    });
    expect(store().membership(ORG, SEEDED.users.unaffiliated).permissions).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
  });

  it("updates permissions in place", async () => {
    const r = await world.run(async (run) =>
      (await run.resource("OrgMember", "linus")).up({ organizationId: ORG, email: "linus@example.com", permissions: ["LEGAL_HOLD_ADMIN", "AI_ADMIN"], userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }] }),
    );
    expect(r.op).toBe("update");
    expect(r.outs.permissions).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
    expect(store().membership(ORG, SEEDED.users.unaffiliated).permissions.sort()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
  });

  it("replaces on a change of email, and delete removes the member", async () => {
    const r = await world.run(async (run) => (await run.resource("OrgMember", "newcomer")).up({ organizationId: ORG, email: "zoe.second@example.com" }));
    expect(r.op).toBe("replace");
    expect(store().findInvitation(ORG, "zoe.newcomer@example.com")).toBeUndefined();
    expect(store().findInvitation(ORG, "zoe.second@example.com")).toBeDefined();

    await world.run(async (run) => (await run.resource("OrgMember", "linus")).destroy());
    expect(memberEmails()).not.toContain("linus@example.com");
  });

  it("delete of something already gone succeeds", async () => {
    store().deleteInvitation(ORG, "zoe.second@example.com");
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "newcomer");
      await d.destroy();
      expect(d.state).toBeUndefined();
    });
  });

  it("refresh of a member removed behind its back drops it from state", async () => {
    store().removeMember(ORG, SEEDED.users.member);
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "alan");
      expect(await d.refresh()).toBeUndefined();
    });
  });

  it("refuses bad input at check, naming the field and the rule", async () => {
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "bad");
      const { failures } = await run.plugin.check(d.urn, {}, { __provider: d.provider, organizationId: ORG, email: "not-an-email", permissions: ["ORG_ADMIN", "ORG_ADMIN", "SUPERUSER"], colour: "blue" });
      const text = failures.map((f) => f.reason).join("\n");
      expect(text).toMatch(/email: must be an email address/);
      expect(text).toMatch(/permissions\.2: .*ORG_ADMIN/);
      expect(text).toMatch(/colour/);
      const neg = await run.plugin.check(d.urn, {}, { __provider: d.provider, organizationId: -3, email: "a@b.example" });
      expect(neg.failures[0].reason).toMatch(/organizationId: must be a positive integer/);
    });
  });

  it("lets preview unknowns through check", async () => {
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "later");
      const p = await d.preview({ organizationId: ORG, email: UNKNOWN, permissions: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world.run(
      async (run) => {
        const d = await run.resource("OrgMember", "denied");
        await expect(d.up({ organizationId: ORG, email: "someone@example.com" })).rejects.toThrow(
          /creating OrgMember someone@example.com in organization 102: the service answered 403.*org admin/,
        );
      },
      { key: world.emu.keys.member },
    );
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "nowhere");
      await expect(d.up({ organizationId: 999999, email: "someone@example.com" })).rejects.toThrow(/organization 999999: the service answered 404/);
    });
  });
});

describe("OrgMember invitation lifecycle", () => {
  const email = "ivy.invitee@example.com";
  it("invite, still pending, accepted and refreshed to active", async () => {
    await world.run(async (run) => (await run.resource("OrgMember", "ivy")).up({ organizationId: ORG, email, permissions: ["AI_ADMIN"] }));
    const pending = await world.run(async (run) => (await run.resource("OrgMember", "ivy")).refresh());
    expect(pending?.outputs).toMatchObject({ status: "invited", userId: null });

    store().acceptInvitation(ORG, email);
    const accepted = await world.run(async (run) => {
      const d = await run.resource("OrgMember", "ivy");
      const s = await d.refresh();
      expect((await d.preview({ organizationId: ORG, email, permissions: ["AI_ADMIN"] })).op).toBe("same");
      return s;
    });
    expect(accepted?.outputs).toMatchObject({ status: "active", permissions: ["AI_ADMIN"] });
    expect(accepted?.outputs.userId).toBe(store().findUserByEmail(email)!.id);
  });

  it("an expired invitation shows as a change and is re-sent on the next up", async () => {
    const late = "lee.late@example.com";
    await world.run(async (run) => (await run.resource("OrgMember", "lee")).up({ organizationId: ORG, email: late }));
    store().expireInvitation(ORG, late);
    const resendsBefore = calls("PostOrganizationInvitationResend");
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "lee");
      expect((await d.refresh())?.outputs.status).toBe("expired");
      expect((await d.preview({ organizationId: ORG, email: late })).op).toBe("update");
      const r = await d.up({ organizationId: ORG, email: late });
      expect(r.outs.status).toBe("invited");
    });
    expect(calls("PostOrganizationInvitationResend")).toBe(resendsBefore + 1);
    expect(store().isExpired(store().invitation(ORG, late))).toBe(false);
  });

  it("adopts a pending invitation that already exists", async () => {
    const r = await world.run(async (run) => (await run.resource("OrgMember", "seeded-invite")).up({ organizationId: ORG, email: SEEDED.invitations.pending }));
    expect(r.outs).toMatchObject({ status: "invited", adopted: true });
  });
});

describe("OrgMember anti-lockout", () => {
  it("refuses at preview to take ORG_ADMIN from the key's own user", async () => {
    await world.run(async (run) => {
      const d = await run.resource("OrgMember", "ada");
      const r = await d.up({ organizationId: ORG, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] });
      expect(r.outs.adopted).toBe(true);
      await expect(d.preview({ organizationId: ORG, email: "ada@northwind.example", permissions: [] })).rejects.toThrow(
        /refused: it would take ORG_ADMIN from ada@northwind.example .*the user of the API key/,
      );
      // Permissions not known yet at preview are judged at up, not refused now.
      expect((await d.preview({ organizationId: ORG, email: "ada@northwind.example", permissions: UNKNOWN })).op).toBe("update");
      await expect(d.destroy()).rejects.toThrow(/refused/);
    });
    expect(store().membership(ORG, SEEDED.users.orgAdmin).permissions).toContain("ORG_ADMIN");
  });

  it("refuses to remove the last org admin, even with an organization key", async () => {
    await world.run(
      async (run) => {
        const d = await run.resource("OrgMember", "ada-by-org-key");
        await d.up({ organizationId: ORG, email: "ada@northwind.example" });
        await expect(d.destroy()).rejects.toThrow(/last org admin of organization 102/);
      },
      { key: world.emu.keys.orgKey },
    );
  });
});
