/**
 * Issue 27: every change made through the web-app control routes lands in the organization's
 * activity log (E10-E12), attributed to an acting user (the body's actingUserId, by default the
 * organization's first org admin), with the target user in the event's data.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { api, control, useEmulator } from "../support/emulatorHttp";

const emu = useEmulator();
const ORG = SEEDED.org;
const U = SEEDED.users;

/** Events of the seeded organization after `afterId`, read with the org admin's key (E11). */
async function eventsAfter(afterId: number): Promise<any[]> {
  const res = await api(emu.url, emu.keys.orgAdmin, "GET", `/v1/organizations/${ORG}/events/after/${afterId}?limit=100`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function lastEventId(orgId: number = ORG): Promise<number> {
  const key = orgId === ORG ? emu.keys.orgAdmin : emu.keys.parentOrgAdmin;
  const res = await api(emu.url, key, "GET", `/v1/organizations/${orgId}/events/recent?limit=1`);
  return res.body.data.events.at(-1)?.id ?? 0;
}

async function ok(method: string, path: string, body?: unknown) {
  const res = await control(emu.url, method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res;
}

describe("web-app changes write attributed events", () => {
  beforeEach(() => {
    emu.reset();
  });

  it("member permission and identifier changes: USER_UPDATED by the default org admin, target in data", async () => {
    const before = await lastEventId();
    await ok("PATCH", `/organizations/${ORG}/members/${U.member}`, { permissions: ["LEGAL_HOLD_ADMIN"] });
    await ok("PATCH", `/organizations/${ORG}/members/${U.member}`, { userIdentifiers: [{ abbreviation: "AT", label: "Alan" }] });
    const events = await eventsAfter(before);
    expect(events.map((e) => [e.type, e.userId, e.data.userId])).toEqual([
      ["USER_UPDATED", U.orgAdmin, U.member],
      ["USER_UPDATED", U.orgAdmin, U.member],
    ]);
    expect(events[0].data.permissions).toEqual(["LEGAL_HOLD_ADMIN"]);
    expect(events[1].data.userIdentifiers).toEqual([{ abbreviation: "AT", label: "Alan" }]);
    expect(events[0].id).toBeGreaterThan(before);
    expect(typeof events[0].timestamp).toBe("number");
  });

  it("names the acting user given in actingUserId, on every route", async () => {
    const before = await lastEventId();
    const actor = U.legalHoldAdmin;
    await ok("POST", `/organizations/${ORG}/members`, { userId: U.unaffiliated, permissions: [], actingUserId: actor });
    await ok("PATCH", `/organizations/${ORG}/members/${U.unaffiliated}`, { permissions: ["AI_ADMIN"], actingUserId: actor });
    await ok("DELETE", `/organizations/${ORG}/members/${U.unaffiliated}`, { actingUserId: actor });
    await ok("PUT", `/databases/${SEEDED.databases.open}/users/${U.member}`, { permissions: ["DB_UPLOAD"], actingUserId: actor });
    await ok("DELETE", `/databases/${SEEDED.databases.open}/users/${U.member}`, { actingUserId: actor });
    await ok("POST", `/organizations/${ORG}/invitations`, { email: "temp@outside.example", actingUserId: actor });
    await ok("POST", "/invitations/accept", { organizationId: ORG, email: "temp@outside.example", actingUserId: actor });
    const events = await eventsAfter(before);
    expect(events.map((e) => [e.type, e.userId])).toEqual([
      ["USER_ADDED", actor],
      ["USER_UPDATED", actor],
      ["USER_REMOVED", actor],
      ["DATABASE_USER_UPDATED", actor],
      ["DATABASE_USER_REMOVED", actor],
      ["INVITATION_SENT", actor],
      ["USER_ADDED", actor],
    ]);
    expect(events.slice(0, 3).map((e) => e.data.userId)).toEqual([U.unaffiliated, U.unaffiliated, U.unaffiliated]);
    expect(events[3].data).toMatchObject({ userId: U.member, databaseId: SEEDED.databases.open, permissions: ["DB_UPLOAD"] });
    expect(events[4].data).toMatchObject({ userId: U.member, databaseId: SEEDED.databases.open, permissions: [] });
    expect(events[5].data.email).toBe("temp@outside.example");
  });

  it("logs a database change in the owning organization's log, and the inviter as the actor of an acceptance", async () => {
    const before = await lastEventId();
    await ok("POST", `/organizations/${ORG}/invitations`, { email: "someone@outside.example", actingUserId: U.legalHoldAdmin });
    await ok("POST", "/invitations/accept", { organizationId: ORG, email: "someone@outside.example" });
    await ok("PUT", `/databases/${SEEDED.databases.restricted}/users/${U.member}`, { permissions: ["DB_DELETE"] });
    const events = await eventsAfter(before);
    expect(events.map((e) => [e.type, e.userId])).toEqual([
      ["INVITATION_SENT", U.legalHoldAdmin],
      ["USER_ADDED", U.legalHoldAdmin],
      ["DATABASE_USER_UPDATED", U.orgAdmin],
    ]);
  });

  it("refuses an acting user that does not exist, naming the field, and changes nothing", async () => {
    const before = await lastEventId();
    const res = await control(emu.url, "PATCH", `/organizations/${ORG}/members/${U.member}`, { permissions: [], actingUserId: 999999 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("actingUserId");
    expect(await eventsAfter(before)).toEqual([]);
    expect(emu.store.members.get(ORG, U.member).permissions).toEqual([]);
  });

  it("a parent organization key sees the event with data and description hidden", async () => {
    const parent = SEEDED.parentOrg;
    const before = await lastEventId(parent);
    await ok("PATCH", `/organizations/${parent}/members/${U.parentAdminUser}`, { permissions: ["ORG_ADMIN", "AI_ADMIN"] });
    const res = await api(emu.url, emu.keys.parentOrgAdmin, "GET", `/v1/organizations/${parent}/events/after/${before}`);
    expect(res.body.data).toEqual([
      expect.objectContaining({ type: "USER_UPDATED", userId: U.parentAdminUser, data: null, description: null }),
    ]);
  });
});
