/**
 * OrgMember through the real plugin against the emulator: create (invite, add, adopt), refresh,
 * drift, update, replace, delete, check failures, API errors, the invitation lifecycle and
 * anti-lockout.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { UNKNOWN } from "../../harness/wire";
import { failuresOfPreview, programFolder, useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const { world, store, record, res, failuresOf } = useResourceWorld("OrgMember");
const memberEmails = () =>
  store()
    .members.of(ORG)
    .map((m) => store().users.get(m.userId).email.toLowerCase());

describe("OrgMember", () => {
  it("an existing platform user: added with permissions and identifiers, refreshed, drifted, updated, deleted", SCENARIO, async () => {
    const linus = {
      organizationId: ORG,
      email: "linus@example.com",
      permissions: ["CLOUD_MANAGEMENT_ADMIN"],
      userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }],
    };

    await step("create: an active member with permissions and identifiers", async () => {
      const r = await world().run(async (run) => (await res(run, "linus")).up(linus));
      expect(r.op).toBe("create");
      expect(r.outs).toMatchObject({
        status: "active",
        userId: SEEDED.users.unaffiliated,
        adopted: false,
        permissions: ["CLOUD_MANAGEMENT_ADMIN"],
      });
      const m = store().members.get(ORG, SEEDED.users.unaffiliated);
      expect(m.permissions).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
      expect(m.userIdentifiers).toEqual([{ abbreviation: "LT", label: "Linus Torvalds" }]);
    });

    await step("refresh with nothing changed changes nothing, and the next up is a no-op", async () => {
      const before = world().states.get("OrgMember/linus")!.outputs;
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "linus");
        const s = await d.refresh();
        expect(s?.outputs).toEqual(before);
        expect((await d.up(linus)).op).toBe("same");
      });
      expect(sent.all()).toEqual(["GetOrganizationUsers 200"]); // one read for refresh and up together
    });

    await step("a reordered or re-cased input is not a change, and preview sends nothing", async () => {
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "linus");
        const p = await d.preview({
          ...linus,
          email: "Linus@Example.com",
          userIdentifiers: [{ label: "Linus Torvalds", abbreviation: "LT" }],
        });
        expect(p.op).toBe("same");
      });
      expect(sent.all()).toEqual([]);
    });

    await step("refresh finds drift made behind its back, and up puts it back", async () => {
      store().members.update(ORG, SEEDED.users.unaffiliated, { permissions: ["ORG_ADMIN", "AI_ADMIN"] });
      await world().run(async (run) => {
        const d = await res(run, "linus");
        const s = await d.refresh();
        expect(s?.outputs.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
        expect(s?.inputs.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
        expect((await d.preview(linus)).op).toBe("update");
        expect((await d.up(linus)).op).toBe("update");
      });
      expect(store().members.get(ORG, SEEDED.users.unaffiliated).permissions).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
    });

    await step("update: permissions in place", async () => {
      const r = await world().run(async (run) => (await res(run, "linus")).up({ ...linus, permissions: ["LEGAL_HOLD_ADMIN", "AI_ADMIN"] }));
      expect(r.op).toBe("update");
      expect(r.outs.permissions).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
      expect(store().members.get(ORG, SEEDED.users.unaffiliated).permissions.sort()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
    });

    await step("delete removes the member", async () => {
      await world().run(async (run) => (await res(run, "linus")).destroy());
      expect(memberEmails()).not.toContain("linus@example.com");
    });
  });

  it(
    "a new email: invited (lower-cased), replaced on a change of email, and deleted once its invitation is already gone",
    SCENARIO,
    async () => {
      await step("create: invites the email, lower-cased", async () => {
        const r = await world().run(async (run) =>
          (await res(run, "newcomer")).up({ organizationId: ORG, email: "Zoe.Newcomer@Example.com", permissions: ["AI_ADMIN"] }),
        );
        expect(r.op).toBe("create");
        expect(r.outs).toMatchObject({
          email: "zoe.newcomer@example.com",
          status: "invited",
          userId: null,
          adopted: false,
          permissions: ["AI_ADMIN"],
        });
        expect(Date.parse(r.outs.invitationExpiration)).toBeGreaterThan(Date.now());
        expect(store().invitations.find(ORG, "zoe.newcomer@example.com")).toBeDefined();
      });

      await step("replace on a change of email", async () => {
        const r = await world().run(async (run) =>
          (await res(run, "newcomer")).up({ organizationId: ORG, email: "zoe.second@example.com" }),
        );
        expect(r.op).toBe("replace");
        expect(store().invitations.find(ORG, "zoe.newcomer@example.com")).toBeUndefined();
        expect(store().invitations.find(ORG, "zoe.second@example.com")).toBeDefined();
      });

      await step("delete of an invitation already gone succeeds, deleting nothing", async () => {
        store().invitations.delete(ORG, "zoe.second@example.com");
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "newcomer");
          await d.destroy();
          expect(d.state).toBeUndefined();
        });
        expect(sent.all()).toEqual(["GetOrganizationInvitations 200", "GetOrganizationUsers 200"]); // found gone: nothing to delete
      });
    },
  );

  it("adopts an existing member without writing anything, and drops it on refresh once removed behind its back", SCENARIO, async () => {
    await step("create: adopts the member, leaving unmanaged fields alone", async () => {
      const before = structuredClone(store().members.get(ORG, SEEDED.users.member));
      const sent = record();
      const r = await world().run(async (run) => (await res(run, "alan")).up({ organizationId: ORG, email: "ALAN@northwind.example" }));
      expect(r.outs).toMatchObject({ status: "active", adopted: true, userId: SEEDED.users.member });
      expect(store().members.get(ORG, SEEDED.users.member)).toEqual(before);
      expect(sent.all()).toEqual(["GetOrganizationUsers 200"]);
    });

    await step("refresh of the member removed behind its back drops it from state", async () => {
      // A person acts in a later second than the program's own writes (refresh looks from the second after the apply).
      store().clock.advance(2_000);
      store().members.remove(ORG, SEEDED.users.member);
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "alan");
        expect(await d.refresh()).toBeUndefined();
        // Drift found: one read of the activity log says who did it (issue 27); the store's removal names no actor.
        await run.plugin.waitForLog(
          /refreshing OrgMember alan@northwind\.example in organization 102: removed outside this program: changed at \S+ by an unnamed actor \(USER_REMOVED\)/,
        );
      });
      expect(sent.all()).toEqual(["GetOrganizationEvents 200", "GetOrganizationInvitations 200", "GetOrganizationUsers 200"]);
    });
  });

  it("refuses bad input at check, naming the field and the rule", async () => {
    await world().run(async (run) => {
      const text = await failuresOf(run, {
        organizationId: ORG,
        email: "not-an-email",
        permissions: ["ORG_ADMIN", "ORG_ADMIN", "SUPERUSER"],
        colour: "blue",
      });
      expect(text).toMatch(/email: must be an email address/);
      expect(text).toMatch(/permissions\.2: .*ORG_ADMIN/);
      expect(text).toMatch(/colour/);
      expect(await failuresOf(run, { organizationId: -3, email: "a@b.example" })).toMatch(/^organizationId: must be a positive integer/);
    });
  });

  it("lets preview unknowns through check", async () => {
    await world().run(async (run) => {
      const p = await (await res(run, "later")).preview({ organizationId: ORG, email: UNKNOWN, permissions: UNKNOWN });
      expect(p.check.failures).toEqual([]);
    });
  });

  it("turns 403 and 404 into one clear line", async () => {
    await world().run(
      async (run) => {
        await expect((await res(run, "denied")).up({ organizationId: ORG, email: "someone@example.com" })).rejects.toThrow(
          /creating OrgMember someone@example.com in organization 102: the service answered 403.*org admin/,
        );
      },
      { key: world().emu.keys.member },
    );
    await world().run(async (run) => {
      await expect((await res(run, "nowhere")).up({ organizationId: 999999, email: "someone@example.com" })).rejects.toThrow(
        /organization 999999: the service answered 404/,
      );
    });
  });
});

describe("OrgMember invitation lifecycle", () => {
  it("invited, still pending, then accepted behind its back and refreshed to active", SCENARIO, async () => {
    const email = "ivy.invitee@example.com";
    const ivy = { organizationId: ORG, email, permissions: ["AI_ADMIN"] };

    await step("create: invites the email", async () => {
      await world().run(async (run) => (await res(run, "ivy")).up(ivy));
    });

    await step("refresh while pending: still invited", async () => {
      const pending = await world().run(async (run) => (await res(run, "ivy")).refresh());
      expect(pending?.outputs).toMatchObject({ status: "invited", userId: null });
    });

    await step("accepted behind its back: refresh shows an active member, and the inputs are no change", async () => {
      store().members.acceptInvitation(ORG, email);
      const accepted = await world().run(async (run) => {
        const d = await res(run, "ivy");
        const s = await d.refresh();
        expect((await d.preview(ivy)).op).toBe("same");
        return s;
      });
      expect(accepted?.outputs).toMatchObject({ status: "active", permissions: ["AI_ADMIN"] });
      expect(accepted?.outputs.userId).toBe(store().users.findByEmail(email)!.id);
    });
  });

  it("an expired invitation shows as a change and is re-sent, once, on the next up", SCENARIO, async () => {
    const late = "lee.late@example.com";
    await step("create: invites the email", async () => {
      await world().run(async (run) => (await res(run, "lee")).up({ organizationId: ORG, email: late }));
    });

    await step("expired behind its back: refresh shows it, preview an update, up re-sends it", async () => {
      store().invitations.expire(ORG, late);
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "lee");
        expect((await d.refresh())?.outputs.status).toBe("expired");
        expect((await d.preview({ organizationId: ORG, email: late })).op).toBe("update");
        const r = await d.up({ organizationId: ORG, email: late });
        expect(r.outs.status).toBe("invited");
      });
      expect(sent.writes()).toEqual(["PostOrganizationInvitationResend 200"]);
      expect(store().invitations.isExpired(store().invitations.get(ORG, late))).toBe(false);
    });
  });

  it("adopts a pending invitation that already exists, without inviting or re-sending", async () => {
    const sent = record();
    const r = await world().run(async (run) =>
      (await res(run, "seeded-invite")).up({ organizationId: ORG, email: SEEDED.invitations.pending }),
    );
    expect(r.outs).toMatchObject({ status: "invited", adopted: true });
    expect(sent.all()).toEqual(["GetOrganizationInvitations 200", "GetOrganizationUsers 200"]);
  });
});

describe("OrgMember anti-lockout", () => {
  it("refuses at preview to take ORG_ADMIN from the key's own user", SCENARIO, async () => {
    const ada = { organizationId: ORG, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] };
    await step("up adopts Ada as she is", async () => {
      const sent = record();
      const r = await world().run(async (run) => (await res(run, "ada")).up(ada));
      expect(r.outs.adopted).toBe(true);
      expect(sent.all()).toEqual(["GetOrganizationUsers 200"]);
    });
    await step("a preview taking ORG_ADMIN away is refused; one with permissions not known yet is judged at up", async () => {
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "ada");
        await expect(d.preview({ ...ada, permissions: [] })).rejects.toThrow(
          /refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind.example> .*the user of the API key/,
        );
        expect((await d.preview({ ...ada, permissions: UNKNOWN })).op).toBe("update");
      });
      expect(sent.all()).toEqual(["GetCurrentUser 200", "GetOrganizationUsers 200"]);
    });
    await step("destroy, a run of its own, is refused and sends no write", async () => {
      const sent = record();
      await world().run(async (run) => {
        await expect((await res(run, "ada")).destroy()).rejects.toThrow(/refused/);
      });
      expect(sent.writes()).toEqual([]);
    });
    expect(store().members.get(ORG, SEEDED.users.orgAdmin).permissions).toContain("ORG_ADMIN");
  });

  it("refuses at preview a create that adopts the key's own user with permissions: [], naming the field; up sends no write", async () => {
    const ada = { organizationId: ORG, email: "Ada@Northwind.example", permissions: [] };
    const here = { cwd: programFolder() };
    const sent = record();
    await world().run(async (run) => {
      const failed = await failuresOfPreview(await res(run, "ada-new"), ada);
      expect(failed.map((f) => `${f.property}: ${f.reason}`)).toEqual([
        "permissions: creating OrgMember ada@northwind.example in organization 102: refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind.example> (user 1001), " +
          "the user of the API key in use, locking this program out of organization 102. Set allowAdminRemoval: true to do it anyway.",
      ]);
      // Permissions not known yet are judged at up; allowAdminRemoval lets it through.
      expect((await (await res(run, "ada-later")).preview({ ...ada, permissions: UNKNOWN })).check.failures).toEqual([]);
      expect((await (await res(run, "ada-allowed")).preview({ ...ada, allowAdminRemoval: true })).check.failures).toEqual([]);
    }, here);
    await world().run(async (run) => {
      await expect((await res(run, "ada-new")).up(ada)).rejects.toThrow(
        /permissions: creating OrgMember .*refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind.example>/,
      );
    }, here);
    expect(sent.writes()).toEqual([]);
    expect(store().members.get(ORG, SEEDED.users.orgAdmin).permissions).toContain("ORG_ADMIN");
  });

  it("refuses at preview a create that adopts the last org admin without ORG_ADMIN, even with an organization key", async () => {
    const sent = record();
    await world().run(
      async (run) => {
        const inputs = { organizationId: ORG, email: "ada@northwind.example", permissions: ["AI_ADMIN"] };
        expect(await failuresOfPreview(await res(run, "ada-by-org-key"), inputs)).toEqual([
          {
            property: "permissions",
            reason: expect.stringMatching(
              /refused: Ada Lovelace <ada@northwind.example> \(user 1001\) is the last org admin of organization 102/,
            ),
          },
        ]);
      },
      { key: world().emu.keys.orgKey, cwd: programFolder() },
    );
    expect(sent.writes()).toEqual([]);
  });

  it("refuses to remove the last org admin, even with an organization key", async () => {
    const orgKey = { key: world().emu.keys.orgKey };
    await world().run(
      async (run) => (await res(run, "ada-by-org-key")).up({ organizationId: ORG, email: "ada@northwind.example" }),
      orgKey,
    );
    const sent = record();
    // Destroy is a run of its own, as the CLI makes it: judged against a fresh members list.
    await world().run(async (run) => {
      await expect((await res(run, "ada-by-org-key")).destroy()).rejects.toThrow(/last org admin of organization 102/);
    }, orgKey);
    expect(sent.writes()).toEqual([]);
    expect(store().members.get(ORG, SEEDED.users.orgAdmin).permissions).toContain("ORG_ADMIN");
  });
});
