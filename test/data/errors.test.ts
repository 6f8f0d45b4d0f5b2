/**
 * How data sources fail and where their credentials come from: a failure is one line naming the
 * data source, what it read, the service's answer and what to check; settings, stack config and
 * the environment, in that order.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getClient, type ApiError } from "../../provider/client";
import * as data from "../../provider/data";
import { DataSourceError } from "../../provider/data";
import { SEEDED } from "../../emulator";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

describe("errors", () => {
  it("a 403 is one line naming the data source, what was read, the status and the role needed", async () => {
    const err = await failure(data.getOrganizationMembers({ organizationId: SEEDED.org }, s.as("member")));
    expect(err.status).toBe(403);
    expect(err.operationId).toBe("GetOrganizationUsers");
    expect(err.dataSource).toBe("getOrganizationMembers");
    expect(err.message).not.toContain("\n");
    // The role is said once, from the route table; the emulator's own text (which names it too) stays on the cause.
    expect(err.message).toBe(
      "getOrganizationMembers: reading the members of organization 102: the service answered 403 Forbidden (this needs org admin of organization 102, which the API key in use lacks)",
    );
    expect((err.cause as ApiError).title).toMatch(/needs org admin/);
    const outErr = await valueOf(data.getOrganizationMembersOutput({ organizationId: SEEDED.org }, s.as("member"))).catch((e) => e);
    expect(outErr).toBeInstanceOf(DataSourceError);
    expect(outErr.message).toBe(err.message);
  });

  it("a 403 on a database's users names the orgAdminAccess rule", async () => {
    const err = await failure(data.getDatabaseUsers({ databaseId: SEEDED.databases.restricted }, s.as("orgAdmin")));
    expect(err.status).toBe(403);
    expect(err.message).toBe(
      "getDatabaseUsers: reading the users of database 2002: the service answered 403 Forbidden (this needs DB_ADMIN on database 2002, or org admin of its owning organization when the database allows org admin access (orgAdminAccess), which the API key in use lacks)",
    );
  });

  it("a bad key is a 401 with a hint; a bad argument fails before any request", async () => {
    const bad = await failure(data.getCurrentUser({}, { settings: s.settingsOf({ key: "ra.NOTAKEY1.X" }) }));
    expect(bad.status).toBe(401);
    expect(bad.message).toMatch(
      /^getCurrentUser: reading the user behind the API key: the service answered 401 .*check reviewadmin:apiKey/,
    );

    s.emu.traffic.log.reset();
    const arg = await failure(data.getOrganization({ organizationId: -3 }, s.as("orgAdmin")));
    expect(arg.message).toBe("getOrganization: invalid argument 'organizationId': must be a positive integer id, got -3");
    expect(s.emu.traffic.log.list()).toEqual([]);
  });

  it("no answer at all says what to check: nothing listens at the base URL", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await data
      .getCurrentUser({}, { settings: { ...s.settingsOf({ role: "orgAdmin" }), baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 1 } })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(err?.message).toMatch(
      /ECONNREFUSED .*\(nothing listens at reviewadmin:baseUrl: check the address and port, and that the service \(or the emulator\) runs\)$/,
    );
    expect(err?.message).not.toContain("\n");
  });

  it("requiredRole words an operation's access from the route table", () => {
    expect(data.requiredRole("GetOrganizationUsers", { organizationId: 102 })).toBe("org admin of organization 102");
    expect(data.requiredRole("GetDatabaseBilling")).toBe(
      "DB_ADMIN on the database, or org admin or parent org admin of its owning organization",
    );
    expect(data.requiredRole("NoSuchOperation")).toBeUndefined();
  });
});

describe("credentials", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    pulumi.runtime.setAllConfig({});
  });
  afterAll(async () => {
    // The clients made from the environment and config, at the default rate.
    for (const role of ["member", "orgAdmin", "databaseAdmin"]) await getClient({ baseUrl: s.emu.url, apiKey: s.emu.keys[role] }).close();
  });

  it("explicit settings work", async () => {
    const me = await data.getCurrentUser({}, { settings: s.settingsOf({ role: "member" }) });
    expect(me.id).toBe(SEEDED.users.member);
  });

  it("environment variables work in a plain script", async () => {
    process.env.REVIEWADMIN_API_KEY = s.emu.keys.member;
    process.env.REVIEWADMIN_BASE_URL = s.emu.url;
    const me = await data.getCurrentUser();
    expect(me.id).toBe(SEEDED.users.member);
    expect((await valueOf(data.getCurrentUserOutput({}))).id).toBe(SEEDED.users.member);
  });

  it("Pulumi config reviewadmin:* wins over the environment", async () => {
    process.env.REVIEWADMIN_API_KEY = s.emu.keys.member;
    process.env.REVIEWADMIN_BASE_URL = s.emu.url;
    pulumi.runtime.setConfig("reviewadmin:apiKey", s.emu.keys.orgAdmin);
    const me = await data.getCurrentUser();
    expect(me.id).toBe(SEEDED.users.orgAdmin);
    // Explicit settings win over config.
    expect((await data.getCurrentUser({}, { settings: { apiKey: s.emu.keys.databaseAdmin } })).id).toBe(SEEDED.users.databaseAdmin);
  });

  it("no key anywhere is one clear error", async () => {
    delete process.env.REVIEWADMIN_API_KEY;
    delete process.env.REVIEWADMIN_BASE_URL;
    const err = await failure(data.getCurrentUser());
    expect(err.message).toMatch(/^getCurrentUser: reviewadmin: no API key: .*REVIEWADMIN_API_KEY/);
  });
});
