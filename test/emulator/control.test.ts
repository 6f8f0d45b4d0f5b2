/**
 * The control API (/_emulator/) and the state file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { api, control, useEmulator } from "../support/emulatorHttp";

const emu = useEmulator();

// Every test starts from the seeded world.
beforeEach(() => {
  emu.reset();
});

describe("control API", () => {
  it("lists its routes, the URL and the named keys, and never answers under /v1", async () => {
    const index = await control(emu.url, "GET", "");
    expect(index.body.data.url).toBe(emu.url);
    expect(index.body.data.keys).toEqual(emu.keys);
    expect(index.body.data.routes.length).toBeGreaterThan(20);
    expect(index.body.data.routes.every((r: { path: string }) => r.path.startsWith("/_emulator"))).toBe(true);
    expect((await control(emu.url, "GET", "/nothing")).status).toBe(404);
    expect((await control(emu.url, "PUT", "/reset")).status).toBe(405);
  });

  it("answers the health check, and reads ids in paths and bodies by the API's rule", async () => {
    expect(await control(emu.url, "GET", "/health")).toMatchObject({
      status: 200,
      body: { data: { status: "ok", controlTokenRequired: false } },
    });
    for (const [method, path, body, parameter] of [
      ["PATCH", "/organizations/0x66/members/1003", { permissions: [] }, "orgId"],
      ["DELETE", "/databases/2001/users/1e3", undefined, "userId"],
      ["DELETE", "/organizations/%ZZ/members/1003", undefined, "orgId"],
      ["POST", "/databases", { organizationId: "0x66", name: "x" }, "body.organizationId"],
    ] as const) {
      const r = await control(emu.url, method, path, body);
      expect(r.status, path).toBe(400);
      expect(r.body.title, path).toContain(`'${parameter}'`);
    }
  });

  it("mints user and organization keys, and revokes them", async () => {
    const user = await control(emu.url, "POST", "/keys", { userId: 1010 });
    expect(user.status).toBe(201);
    expect(user.body.data.key).toMatch(/^ra\.[A-Z0-9]{8}\.[A-Z0-9]{56}$/);
    expect((await api(emu.url, user.body.data.key, "GET", "/v1/users/me")).body.data.id).toBe(1010);

    // An organization key of 103 is org admin there, and of nothing else.
    const org = await control(emu.url, "POST", "/keys", { organizationId: 103 });
    expect((await api(emu.url, org.body.data.key, "GET", "/v1/organizations/103/users")).status).toBe(200);
    expect((await api(emu.url, org.body.data.key, "GET", "/v1/organizations/102/users")).status).toBe(403);

    expect((await control(emu.url, "DELETE", `/keys/${user.body.data.keyId}`)).status).toBe(204);
    expect((await api(emu.url, user.body.data.key, "GET", "/v1/users/me")).status).toBe(401);
    expect((await control(emu.url, "POST", "/keys", { userId: 99999 })).status).toBe(404);
    expect((await control(emu.url, "POST", "/keys", {})).status).toBe(400);
  });

  it("accepts an invitation: the user and the membership appear with the invitation's permissions", async () => {
    // Invite someone new through the API, then let them accept.
    await api(emu.url, emu.keys.orgAdmin, "POST", "/v1/organizations/102/users", {
      permissions: ["AI_ADMIN"],
      users: [{ email: "Grace.Newcomer@example.com", firstName: "Grace", lastName: "Newcomer" }],
    });
    const accepted = await control(emu.url, "POST", "/invitations/accept", { organizationId: 102, email: "grace.newcomer@example.com" });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ email: "Grace.Newcomer@example.com", firstName: "Grace", permissions: ["AI_ADMIN"] });
    const invitations = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/invitations");
    expect(invitations.body.data.invitations.map((i: any) => i.email)).not.toContain("Grace.Newcomer@example.com");
    const member = await api(emu.url, emu.keys.orgAdmin, "GET", `/v1/organizations/102/users/${accepted.body.data.id}`);
    expect(member.body.data.permissions).toEqual(["AI_ADMIN"]);
    // Adding the same email again now finds a member, not someone to invite.
    const again = await api(emu.url, emu.keys.orgAdmin, "POST", "/v1/organizations/102/users", {
      users: [{ email: "grace.newcomer@example.com", firstName: "G", lastName: "N" }],
    });
    expect(again.body.data.users.map((u: any) => u.id)).toEqual([accepted.body.data.id]);
    expect(again.body.data.invites).toEqual([]);
  });

  it("expires an invitation, which can then not be accepted until it is re-sent", async () => {
    const email = "new.hire@northwind.example";
    const expired = await control(emu.url, "POST", "/invitations/expire", { organizationId: 102, email });
    expect(expired.body.data.expired).toBe(true);
    const refused = await control(emu.url, "POST", "/invitations/accept", { organizationId: 102, email });
    expect(refused.status).toBe(400);
    expect(refused.body.title).toContain("expired");
    await api(emu.url, emu.keys.orgAdmin, "POST", "/v1/organizations/102/invitations/resend", { email });
    expect((await control(emu.url, "POST", "/invitations/accept", { organizationId: 102, email })).status).toBe(200);
    expect((await control(emu.url, "POST", "/invitations/expire", { organizationId: 102, email: "nobody@example.com" })).status).toBe(404);
  });

  it("advances the clock", async () => {
    const before = (await control(emu.url, "GET", "/clock")).body.data.nowMs;
    const after = (await control(emu.url, "POST", "/clock", { advanceDays: 30 })).body.data.nowMs;
    expect(after - before).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(after - before).toBeLessThan(30 * 86_400_000 + 5_000);
    // A key it does not know is refused, naming it: it would otherwise move nothing, in silence.
    const refused = await control(emu.url, "POST", "/clock", { advanceSeconds: 60 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("advanceSeconds");
    expect((await control(emu.url, "GET", "/clock")).body.data.nowMs - after).toBeLessThan(5_000);
  });

  it("changes things behind the program's back, as a person in the web UI would", async () => {
    const patched = await control(emu.url, "PATCH", "/organizations/102/members/1003", { permissions: ["ORG_ADMIN"] });
    expect(patched.body.data.permissions).toEqual(["ORG_ADMIN"]);
    expect((await api(emu.url, emu.keys.member, "GET", "/v1/organizations/102/users")).status).toBe(200);

    const added = await control(emu.url, "POST", "/organizations/102/members", {
      email: "outsider@example.com",
      firstName: "Out",
      lastName: "Sider",
      permissions: ["AI_ADMIN"],
    });
    expect(added.status).toBe(201);
    const listed = await api(emu.url, emu.keys.orgAdmin, "GET", `/v1/organizations/102/users/${added.body.data.id}`);
    expect(listed.body.data.permissions).toEqual(["AI_ADMIN"]);

    expect((await control(emu.url, "DELETE", `/organizations/102/members/${added.body.data.id}`)).status).toBe(204);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", `/v1/organizations/102/users/${added.body.data.id}`)).status).toBe(404);

    await control(emu.url, "PUT", "/databases/2001/users/1010", { permissions: ["DB_ADMIN"] });
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases/2001/users/1010")).body.data.permissions).toEqual(["DB_ADMIN"]);
    expect((await control(emu.url, "DELETE", "/databases/2001/users/1010")).status).toBe(204);

    const invited = await control(emu.url, "POST", "/organizations/102/invitations", { email: "ui.invite@example.com" });
    expect(invited.status).toBe(201);
    // The web app's acting user (by default the first org admin) is the inviter (issue 27).
    expect(invited.body.data.invitedBy).toBe(1001);
  });

  it("reset restores the seeded world; another seed gives other keys; 'empty' gives nothing", async () => {
    await api(emu.url, emu.keys.orgAdmin, "DELETE", "/v1/organizations/102/users/1003");
    const same = await control(emu.url, "POST", "/reset", {});
    expect(same.body.data.keys).toEqual(emu.keys);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/users/1003")).status).toBe(200);

    const oldKey = emu.keys.orgAdmin;
    const other = await control(emu.url, "POST", "/reset", { seed: 2 });
    expect(other.body.data.keys.orgAdmin).not.toBe(oldKey);
    expect((await api(emu.url, oldKey, "GET", "/v1/users/me")).status).toBe(401);
    expect((await api(emu.url, other.body.data.keys.orgAdmin, "GET", "/v1/users/me")).body.data.id).toBe(1001);

    const empty = await control(emu.url, "POST", "/reset", { seed: "empty" });
    expect(empty.body.data.keys).toEqual({});
    const org = await control(emu.url, "POST", "/organizations", { name: "Solo" });
    const key = await control(emu.url, "POST", "/keys", { organizationId: org.body.data.id });
    const orgs = await api(emu.url, key.body.data.key, "GET", "/v1/organizations");
    expect(orgs.body.data.map((o: any) => o.name)).toEqual(["Solo"]);
  });

  it("builds a big world for benchmarks", async () => {
    const res = await control(emu.url, "POST", "/scale", { members: 1000, databases: 3, usersPerDatabase: 5 });
    expect(res.body.data.membersAdded).toBe(1000);
    expect(res.body.data.databaseIds.length).toBe(3);
    expect(emu.store.members.of(102).length).toBe(7 + 1000 + 15);
    expect(emu.store.databases.usersOf(res.body.data.databaseIds[0]).length).toBe(5);
  });
});

describe("state file", () => {
  it("keeps the world, keys and clock across a restart", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-state-"));
    const stateFile = path.join(dir, "world.json");
    try {
      const first = await startEmulator({ stateFile });
      const keys = { ...first.keys };
      await api(first.url, keys.orgAdmin, "DELETE", "/v1/organizations/102/users/1003");
      await api(first.url, keys.orgAdmin, "PUT", "/v1/databases/2001/users/1010", { databasePermissions: ["DB_ADMIN"] });
      await control(first.url, "POST", "/clock", { advanceDays: 2 });
      const minted = (await control(first.url, "POST", "/keys", { userId: 1010 })).body.data.key;
      await first.close();

      const second = await startEmulator({ stateFile, seed: 99 });
      try {
        expect(second.keys).toEqual(keys);
        expect((await api(second.url, keys.orgAdmin, "GET", "/v1/organizations/102/users/1003")).status).toBe(404);
        expect((await api(second.url, minted, "GET", "/v1/databases/2001/users/1010")).body.data.permissions).toEqual(["DB_ADMIN"]);
        expect(second.store.clock.offsetMs).toBe(2 * 86_400_000);
        const events = await api(second.url, keys.orgAdmin, "GET", "/v1/organizations/102/events/recent?limit=1");
        expect(events.body.data.events[0].type).toBe("USER_REMOVED");
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
