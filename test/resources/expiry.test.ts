/**
 * Expiring access through the real plugin (issue 26, provider/resources/support/expiry.ts): a
 * DatabaseUserPermissions with `expiresOn` is listed as expiring soon, then, once the emulator's
 * clock has passed the date, preview says it will be removed, up removes the grant and the state
 * says so (`expiredOn`), and a later up changes nothing. Malformed dates and an end before the
 * start are refused at check, naming the field. The edges: an invitation accepted in time leaves a
 * member who stays past its end date (said, with how to end it); a roster entry is granted on its
 * startsOn day, not before; the key's own DB_ADMIN past its end date is a lockout, refused.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { control } from "../support/emulatorHttp";
import { useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";

const DB = SEEDED.databases.open;
const U = SEEDED.users;
const { world, store, record, res, failuresOf } = useResourceWorld("DatabaseUserPermissions");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const lines = (run: { plugin: { logs: { line: string }[] } }) => run.plugin.logs.map((l) => l.line).join("\n");
const moveClock = (days: number) => control(world().emu.url, "POST", "/clock", { advanceDays: days });

/**
 * Two days on by the service's clock (the end date `end` now past): the preview of `inputs` says
 * `who` expired and will be removed; up sends exactly one write, matching `write`, and returns its
 * outputs; a later up is "same" and writes nothing.
 */
async function pastTheEnd(kind: string, name: string, inputs: Record<string, unknown>, who: string, end: string, write: RegExp) {
  expect((await moveClock(2)).status).toBe(200);
  await world().run(async (run) => {
    expect((await (await res(run, name, kind)).preview(inputs)).op).toBe("update");
    expect(lines(run)).toContain(`${who}: expired on ${end}, will be removed`);
  });
  const sent = record();
  const r = await world().run(async (run) => (await res(run, name, kind)).up(inputs));
  expect(sent.writes()).toEqual([expect.stringMatching(write)]);
  const later = record();
  await world().run(async (run) => expect((await (await res(run, name, kind)).up(inputs)).op).toBe("same"));
  expect(later.writes()).toEqual([]);
  return r.outs;
}

describe("DatabaseUserPermissions with expiresOn", () => {
  it("expiring soon, then expired: preview says so, up removes the grant once, the state says so", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const inputs = { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"], expiresOn: tomorrow };
    try {
      await step("creates the grant; the output names the end date as expiring soon", async () => {
        const r = await world().run(async (run) => (await res(run, "guest")).up(inputs));
        expect(r.outs).toMatchObject({ permissions: ["DB_UPLOAD"], expiresOn: tomorrow, expiringSoon: tomorrow });
        expect(r.outs.expiredOn).toBeUndefined();
      });

      await step("today's preview warns that it expires tomorrow, and changes nothing", async () => {
        await world().run(async (run) => {
          expect((await (await res(run, "guest")).preview(inputs)).op).toBe("same");
          expect(lines(run)).toMatch(new RegExp(`access expiring soon: user ${U.member} expires on ${tomorrow} \\(in 1 day\\)`));
        });
      });

      await step("two days later (the service's clock): preview says it will be removed; up removes it with one write", async () => {
        expect((await moveClock(2)).status).toBe(200);
        await world().run(async (run) => {
          expect((await (await res(run, "guest")).preview(inputs)).op).toBe("update");
          expect(lines(run)).toMatch(new RegExp(`user ${U.member}: expired on ${tomorrow}, will be removed`));
        });
        const sent = record();
        const r = await world().run(async (run) => (await res(run, "guest")).up(inputs));
        expect(sent.writes()).toEqual(["DeleteDatabaseUser 204"]);
        expect(store().databases.findUser(DB, U.member)?.permissions ?? []).toEqual([]);
        expect(r.outs).toMatchObject({ permissions: [], expiresOn: tomorrow, expiredOn: tomorrow });
      });

      await step("a later up and a refresh with the date still past change nothing", async () => {
        const sent = record();
        await world().run(async (run) => expect((await (await res(run, "guest")).up(inputs)).op).toBe("same"));
        await world().run(async (run) =>
          expect((await (await res(run, "guest")).refresh())?.outputs).toMatchObject({ expiredOn: tomorrow }),
        );
        expect(sent.writes()).toEqual([]);
      });

      await step("moving the end date later grants it again", async () => {
        const later = { ...inputs, expiresOn: day(store().clock.now() + 30 * 86_400_000) };
        const r = await world().run(async (run) => (await res(run, "guest")).up(later));
        expect(r.op).toBe("update");
        expect(store().databases.findUser(DB, U.member)?.permissions).toEqual(["DB_UPLOAD"]);
        expect(r.outs.expiredOn).toBeUndefined();
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });

  it("refuses a malformed date at check, naming the field", async () => {
    const failures = await world().run((run) =>
      failuresOf(run, { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"], expiresOn: "2026-02-30" }),
    );
    expect(failures).toBe('expiresOn: must be a calendar day written YYYY-MM-DD (UTC), e.g. "2026-12-31"');
  });
});

describe("OrgMember with expiresOn", () => {
  it("past the end date up removes the member once (status removed); the key's own user is refused at preview", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const alan = { organizationId: SEEDED.org, email: "alan@northwind.example", expiresOn: tomorrow };
    try {
      await step("adopts alan; the output names the end date", async () => {
        const r = await world().run(async (run) => (await res(run, "alan", "OrgMember")).up(alan));
        expect(r.outs).toMatchObject({ status: "active", expiresOn: tomorrow, expiringSoon: tomorrow });
      });
      await step("two days later: preview says so, up removes him with one write, a later up does nothing", async () => {
        const outs = await pastTheEnd("OrgMember", "alan", alan, "alan@northwind.example", tomorrow, /^DeleteOrganizationUser 20\d$/);
        expect(outs).toMatchObject({ status: "removed", userId: null, permissions: [], expiredOn: tomorrow });
        expect(store().members.find(SEEDED.org, U.member)).toBeUndefined();
      });
      await step("the key's own user past the end date: refused at preview, naming them", async () => {
        const ada = { organizationId: SEEDED.org, email: "ada@northwind.example" };
        await world().run(async (run) => (await res(run, "ada", "OrgMember")).up(ada));
        await world().run(async (run) =>
          expect((await res(run, "ada", "OrgMember")).preview({ ...ada, expiresOn: tomorrow })).rejects.toThrow(
            /refused: .*ada@northwind\.example/,
          ),
        );
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });
});

describe("OrgMemberPermissions with expiresOn", () => {
  it("past the end date up empties the permissions once, and the membership stays", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const grant = { organizationId: SEEDED.org, email: "alan@northwind.example", permissions: ["AI_ADMIN"], expiresOn: tomorrow };
    try {
      await step("grants AI_ADMIN until tomorrow", async () => {
        const r = await world().run(async (run) => (await res(run, "alan", "OrgMemberPermissions")).up(grant));
        expect(r.outs).toMatchObject({ permissions: ["AI_ADMIN"], expiringSoon: tomorrow });
      });
      await step("two days later: preview says so; up empties them with one write; a later up does nothing", async () => {
        const outs = await pastTheEnd(
          "OrgMemberPermissions",
          "alan",
          grant,
          "alan@northwind.example",
          tomorrow,
          /^PatchOrganizationUser 200$/,
        );
        expect(outs).toMatchObject({ permissions: [], expiredOn: tomorrow });
        expect(store().members.get(SEEDED.org, U.member).permissions).toEqual([]);
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });
});

describe("Invitation with expiresOn", () => {
  it("past the end date up withdraws the pending invitation once, and never re-sends it", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const inv = { organizationId: SEEDED.org, email: "guest@lawfirm.example", expiresOn: tomorrow };
    try {
      await step("invites until tomorrow", async () => {
        const r = await world().run(async (run) => (await res(run, "guest", "Invitation")).up(inv));
        expect(r.outs).toMatchObject({ status: "pending", expiringSoon: tomorrow });
      });
      await step("two days later: preview says so; up withdraws it with one write; a later up does nothing", async () => {
        const outs = await pastTheEnd("Invitation", "guest", inv, "guest@lawfirm.example", tomorrow, /^DeleteOrganizationInvitation 20\d$/);
        expect(outs).toMatchObject({ status: "removed", expiredOn: tomorrow });
        expect(
          store()
            .invitations.of(SEEDED.org)
            .map((i) => i.email),
        ).not.toContain("guest@lawfirm.example");
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });
});

describe("Invitation with expiresOn, accepted in time", () => {
  it(
    "past the end date an accepted invitation's member stays: the preview says so and how to end it; up writes nothing",
    SCENARIO,
    async () => {
      const tomorrow = day(store().clock.now() + 86_400_000);
      const inv = { organizationId: SEEDED.org, email: "guest@lawfirm.example", expiresOn: tomorrow };
      try {
        await step("invites until tomorrow; the guest accepts today", async () => {
          await world().run(async (run) => (await res(run, "guest", "Invitation")).up(inv));
          const accepted = await control(world().emu.url, "POST", "/invitations/accept", { organizationId: SEEDED.org, email: inv.email });
          expect(accepted.status, JSON.stringify(accepted.body)).toBeLessThan(300);
          const r = await world().run(async (run) => (await res(run, "guest", "Invitation")).refresh());
          expect(r?.outputs).toMatchObject({ status: "accepted" });
        });
        await step("two days later: the preview warns the member stays, naming OrgMember's expiresOn; up writes nothing", async () => {
          expect((await moveClock(2)).status).toBe(200);
          const guest = store().users.findByEmail(inv.email)!.id;
          await world().run(async (run) => {
            await (await res(run, "guest", "Invitation")).preview(inv);
            expect(lines(run)).toContain(
              `expired on ${tomorrow}, but accepted: guest@lawfirm.example stays a member (end it with an OrgMember's expiresOn)`,
            );
          });
          const sent = record();
          await world().run(async (run) => (await res(run, "guest", "Invitation")).up(inv));
          expect(sent.writes()).toEqual([]);
          expect(store().members.find(SEEDED.org, guest)).toBeDefined();
        });
      } finally {
        await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
      }
    },
  );
});

describe("OrganizationMembers entries with expiresOn", () => {
  it("an additive roster removes a person once their end date has passed, and only them", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const roster = (ends: string) => ({
      organizationId: SEEDED.org,
      mode: "additive",
      onUnmanaged: "ignore",
      members: { "alan@northwind.example": { expiresOn: ends }, "ada@northwind.example": {} },
    });
    try {
      await step("today: the output lists alan as expiring soon", async () => {
        const r = await world().run(async (run) => (await res(run, "legal", "OrganizationMembers")).up(roster(tomorrow)));
        expect(r.outs.expiringSoon).toEqual({ "alan@northwind.example": tomorrow });
      });
      await step("two days later: preview says alan will be removed; up removes him with one write", async () => {
        expect((await moveClock(2)).status).toBe(200);
        await world().run(async (run) => {
          expect((await (await res(run, "legal", "OrganizationMembers")).preview(roster(tomorrow))).op).toBe("update");
          // The roster's preview names each removal on a line of its own, with why.
          expect(lines(run)).toMatch(new RegExp(`- alan@northwind\\.example: [^\\n]*\\(expired on ${tomorrow}\\)`));
        });
        const sent = record();
        const r = await world().run(async (run) => (await res(run, "legal", "OrganizationMembers")).up(roster(tomorrow)));
        expect(sent.writes()).toEqual([expect.stringMatching(/^DeleteOrganizationUser 20\d$/)]);
        expect(store().members.find(SEEDED.org, U.member)).toBeUndefined();
        expect(store().members.find(SEEDED.org, U.orgAdmin)).toBeDefined();
        expect(r.outs).toMatchObject({ expired: { "alan@northwind.example": tomorrow } });
        const again = record();
        await world().run(async (run) =>
          expect((await (await res(run, "legal", "OrganizationMembers")).up(roster(tomorrow))).op).toBe("same"),
        );
        expect(again.writes()).toEqual([]);
      });
      await step("the key's own user past their end date is kept, and the refusal says why", async () => {
        await world().run(async (run) => {
          const d = await res(run, "legal", "OrganizationMembers");
          await expect(d.preview({ ...roster(tomorrow), members: { "ada@northwind.example": { expiresOn: tomorrow } } })).rejects.toThrow(
            /refused: .*ada@northwind\.example/,
          );
        });
        expect(store().members.find(SEEDED.org, U.orgAdmin)).toBeDefined();
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });
});

describe("DatabaseUsers entries with dates", () => {
  it("refuses a malformed date and an end before the start at check, naming each field; bare entries still read", async () => {
    const failures = await world().run((run) =>
      failuresOf(
        run,
        {
          databaseId: DB,
          mode: "additive",
          users: {
            [String(U.orgAdmin)]: ["DB_ADMIN"],
            [String(U.member)]: { permissions: ["DB_UPLOAD"], expiresOn: "31/12/2026" },
            [String(U.multiOrgMember)]: { permissions: ["DB_UPLOAD"], startsOn: "2026-12-01", expiresOn: "2026-11-01" },
          },
        },
        undefined,
        "DatabaseUsers",
      ),
    );
    expect(failures).toContain(`users.${U.member}.expiresOn: must be a calendar day written YYYY-MM-DD (UTC), e.g. "2026-12-31"`);
    expect(failures).toContain(
      `users.${U.multiOrgMember}.expiresOn: must be after startsOn (2026-12-01): access ends at the start of the expiresOn day, so 2026-11-01 would give none`,
    );
    expect(failures).not.toContain(`users.${U.orgAdmin}`);
  });
});

describe("DatabaseUsers entries with startsOn, and the key's own expired DB_ADMIN", () => {
  it("an entry before its startsOn is not granted; on that day up grants it with one write", SCENARIO, async () => {
    const start = day(store().clock.now() + 2 * 86_400_000);
    const roster = {
      databaseId: DB,
      mode: "additive",
      onUnmanaged: "ignore",
      users: { [String(U.member)]: { permissions: ["DB_UPLOAD"], startsOn: start } },
    };
    try {
      await step("before the start: up grants nothing", async () => {
        const sent = record();
        await world().run(async (run) => (await res(run, "nvc", "DatabaseUsers")).up(roster));
        expect(sent.writes()).toEqual([]);
        expect(store().databases.findUser(DB, U.member)).toBeUndefined();
      });
      await step("on the start day: up grants DB_UPLOAD with one write", async () => {
        expect((await moveClock(2)).status).toBe(200);
        const sent = record();
        await world().run(async (run) => (await res(run, "nvc", "DatabaseUsers")).up(roster));
        expect(sent.writes()).toEqual([expect.stringMatching(/^PutDatabaseUser 20\d$/)]);
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });

  it("the key's own DB_ADMIN past its end date is kept: the preview refuses and says why, and nothing is written", SCENARIO, async () => {
    const tomorrow = day(store().clock.now() + 86_400_000);
    const roster = {
      databaseId: DB,
      mode: "additive",
      onUnmanaged: "ignore",
      users: { [String(U.orgAdmin)]: { permissions: ["DB_ADMIN"], expiresOn: tomorrow } },
    };
    try {
      await step("the key's own user (Ada) gets DB_ADMIN on 2001 until tomorrow", async () => {
        await world().run(async (run) => (await res(run, "nvc", "DatabaseUsers")).up(roster));
        expect(store().databases.findUser(DB, U.orgAdmin)?.permissions).toEqual(["DB_ADMIN"]);
      });
      await step("two days later taking it away is refused as a lockout, before anything is sent", async () => {
        expect((await moveClock(2)).status).toBe(200);
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "nvc", "DatabaseUsers");
          await expect(d.preview(roster)).rejects.toThrow(/refused: .*DB_ADMIN.*allowAdminRemoval/);
        });
        expect(sent.writes()).toEqual([]);
        expect(store().databases.findUser(DB, U.orgAdmin)?.permissions).toEqual(["DB_ADMIN"]);
      });
    } finally {
      await control(world().emu.url, "POST", "/clock", { advanceMs: -store().clock.offsetMs });
    }
  });
});
