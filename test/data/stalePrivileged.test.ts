/**
 * getStalePrivilegedPeople (issue 27): the privileged people of an organization with no event as
 * the actor in its activity log within the window, against the seeded world over HTTP.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { getStalePrivilegedPeople } from "../../provider/data";
import { control } from "../support/emulatorHttp";
import { useSeededEmulator } from "./seededEmulator";

const seeded = useSeededEmulator();
const DAY = 86_400_000;

describe("getStalePrivilegedPeople", () => {
  it("lists exactly the privileged people without an event as the actor in the window", async () => {
    const asOf = seeded.emu.store.clock.now();
    const r = await getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDays: 30, asOf }, seeded.as("orgAdmin"));
    const store = seeded.emu.store;
    const active = new Set(
      store.events
        .all()
        .filter((e) => e.organizationId === SEEDED.org && e.timestamp >= asOf - 30 * DAY && e.timestamp <= asOf)
        .map((e) => e.userId),
    );
    const privilegedMembers = store.members
      .of(SEEDED.org)
      .filter((m) => m.permissions.length > 0 && store.users.get(m.userId).apiKeyOf === undefined);
    // 2002 (orgAdminAccess off) is not readable with the org admin's key, so its DB_ADMIN is not judged.
    expect(r.unreadableDatabases).toEqual([SEEDED.databases.restricted]);
    expect(r.privileged).toBe(privilegedMembers.length);
    expect(r.stale.map((p) => p.userId).sort()).toEqual(
      privilegedMembers
        .map((m) => m.userId)
        .filter((id) => !active.has(id))
        .sort(),
    );
    expect(r).toMatchObject({
      organizationId: SEEDED.org,
      staleDays: 30,
      asOf: new Date(asOf).toISOString(),
      windowBegin: new Date(asOf - 30 * DAY).toISOString(),
    });
  });

  it("a web-app change by a person makes them active", async () => {
    // Two quiet days: no seeded event is left in a one-day window.
    await control(seeded.emu.url, "POST", "/clock", { advanceDays: 2 });
    const asOf0 = seeded.emu.store.clock.now();
    const before = await getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDays: 1, asOf: asOf0 }, seeded.as("orgAdmin"));
    const frances = before.stale.find((p) => p.userId === SEEDED.users.legalHoldAdmin);
    expect(frances).toMatchObject({ email: "frances@northwind.example", organizationPermissions: ["LEGAL_HOLD_ADMIN"] });
    const res = await control(seeded.emu.url, "PATCH", `/organizations/${SEEDED.org}/members/${SEEDED.users.member}`, {
      permissions: [],
      actingUserId: SEEDED.users.legalHoldAdmin,
    });
    expect(res.status).toBe(200);
    const after = await getStalePrivilegedPeople(
      { organizationId: SEEDED.org, staleDays: 1, asOf: seeded.emu.store.clock.now() },
      seeded.as("orgAdmin"),
    );
    expect(after.stale.map((p) => p.userId)).not.toContain(SEEDED.users.legalHoldAdmin);
  });

  it("without asOf, the window ends at the service's clock (its Date header), not this machine's", async () => {
    // The emulator's clock runs a year ahead of this machine's: a window on the machine's clock
    // would end a year before the service's "now".
    await control(seeded.emu.url, "POST", "/clock", { advanceDays: 365 });
    const r = await getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDays: 30 }, seeded.as("orgAdmin"));
    const serviceNow = seeded.emu.store.clock.now();
    expect(Math.abs(Date.parse(r.asOf) - serviceNow)).toBeLessThan(5_000);
    expect(Date.parse(r.asOf) - Date.now()).toBeGreaterThan(300 * DAY);
    // A year with no events: every judged privileged person is stale.
    expect(r.stale.length).toBe(r.privileged);
  });

  it("a privilege's own limit judges its holders (the strictest of theirs); each stale person carries their limit and last activity", async () => {
    const ada = SEEDED.users.orgAdmin;
    const last = Math.max(
      ...seeded.emu.store.events
        .all()
        .filter((e) => e.organizationId === SEEDED.org && e.userId === ada)
        .map((e) => e.timestamp),
    );
    // As of two and a half days after Ada last acted: stale by an ORG_ADMIN limit of 2 days, not of 3.
    const asOf = last + 2.5 * DAY;
    const judge = (orgAdminDays: number) =>
      getStalePrivilegedPeople(
        { organizationId: SEEDED.org, staleDays: 365, staleDaysByPrivilege: { ORG_ADMIN: orgAdminDays }, asOf },
        seeded.as("orgAdmin"),
      );
    const strict = await judge(2);
    expect(strict.staleDaysByPrivilege).toEqual({ ORG_ADMIN: 2 });
    expect(strict.windowBegin).toBe(new Date(asOf - 365 * DAY).toISOString());
    // Everyone else keeps the 365-day limit, and acted within the seeded year.
    expect(strict.stale).toEqual([
      expect.objectContaining({
        userId: ada,
        organizationPermissions: ["ORG_ADMIN"],
        limitDays: 2,
        lastActivity: new Date(last).toISOString(),
      }),
    ]);
    expect((await judge(3)).stale).toEqual([]);
  });

  it("refuses bad arguments by name before anything is sent", async () => {
    await expect(getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDays: 0 }, seeded.as("orgAdmin"))).rejects.toThrow(
      /staleDays.*positive whole number/,
    );
    await expect(
      getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDaysByPrivilege: { ADMIN: 3 } as never }, seeded.as("orgAdmin")),
    ).rejects.toThrow(
      "invalid argument 'staleDaysByPrivilege.ADMIN': must be one of ORG_ADMIN, CLOUD_MANAGEMENT_ADMIN, LEGAL_HOLD_ADMIN, AI_ADMIN, DB_ADMIN",
    );
    await expect(
      getStalePrivilegedPeople({ organizationId: SEEDED.org, staleDaysByPrivilege: { DB_ADMIN: 0 } }, seeded.as("orgAdmin")),
    ).rejects.toThrow(/staleDaysByPrivilege\.DB_ADMIN.*positive whole number/);
  });
});
