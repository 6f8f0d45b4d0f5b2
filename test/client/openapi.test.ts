/**
 * The client and the emulator with the routes of a vendor's OpenAPI document on both sides
 * (`openapi` option): every kind of request (paths with and without parameters, a method the
 * document changes, paging through links.next, the events' own next links) goes to the
 * document's paths; either side alone with the document misses the other; the failure hints name
 * the ids of a renamed path; a document that cannot be used is one ClientConfigError; and the
 * settings (`reviewadmin:openapi` / REVIEWADMIN_OPENAPI, a program's config for data sources)
 * check it once, naming each operation.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { openApiDocumentOf } from "../../contract/openapi";
import { OpenApiError, SEEDED, startEmulator } from "../../emulator";
import { ApiError, ClientConfigError, getClient, ReviewAdminClient } from "../../provider/client";
import { clientFor } from "../../provider/data/dataSource";
import { describeCause } from "../../provider/failures";
import { currentClient, resolveSettings, settingsFromConfig, SettingsError } from "../../provider/settings";
import { api, useEmulator } from "../support/emulatorHttp";

const RENAMED = path.resolve(__dirname, "../fixtures/openapi/renamed.yaml");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "client-openapi-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A copy of the built-in routes' document without GetDatabaseUsers, and PatchOrganizationUser under a tenant it cannot fill. */
const BROKEN = path.join(dir, "broken.yaml");
{
  const doc = openApiDocumentOf() as { paths: Record<string, Record<string, unknown>> };
  delete doc.paths["/v1/databases/{databaseId}/users"];
  const users = doc.paths["/v1/organizations/{orgId}/users/{userId}"]!;
  doc.paths["/v1/tenants/{tenant}/organizations/{orgId}/users/{userId}"] = { patch: users.patch };
  delete users.patch;
  fs.writeFileSync(BROKEN, stringify(doc));
}
const BROKEN_PROBLEMS =
  "PatchOrganizationUser: PATCH /v1/tenants/{tenant}/organizations/{orgId}/users/{userId}: path parameter {tenant} cannot be filled (it has {orgId}, {userId}); " +
  "GetDatabaseUsers: not in the document (no operation has this operationId)";

const emu = useEmulator({ openapi: RENAMED });
const clients: ReviewAdminClient[] = [];
afterAll(() => Promise.all(clients.map((c) => c.close())));
const client = (opts: { openapi?: string; baseUrl?: string } = { openapi: RENAMED }) => {
  const c = new ReviewAdminClient({
    baseUrl: opts.baseUrl ?? emu.url,
    apiKey: emu.keys.orgAdmin,
    requestsPerSecond: 1000,
    retryBaseMs: 1,
    ...opts,
  });
  clients.push(c);
  return c;
};
/** The API requests the emulator logged since `from` (its log's length before). */
const logged = (from: number) =>
  emu.traffic.log
    .list()
    .slice(from)
    .map((e) => `${e.method} ${e.path} ${e.status}`);

describe("client and emulator on a renamed document", () => {
  it("sends every kind of request to the document's paths, and the emulator serves them", async () => {
    const c = client();
    const from = emu.traffic.log.list().length;
    expect((await c.call("GetCurrentUser", {})).id).toBe(SEEDED.users.orgAdmin);
    // Paging follows the emulator's links.next, which is the request's own (renamed) path.
    const members = await c.listAll("GetOrganizationUsers", { orgId: SEEDED.org, limit: 2 });
    expect(members.length).toBeGreaterThan(2);
    // The events' next links are built from the emulator's route table.
    const events = await c.listAll("GetOrganizationEvents", { orgId: SEEDED.org, begin: 0, end: 8.64e15, limit: 600 });
    expect(events.length).toBeGreaterThan(600);
    // Parameters in the other order than ours, mapped by name.
    const [grant] = await c.listAll("GetDatabaseUsers", { databaseId: SEEDED.databases.open });
    const userId = grant!.user.id;
    expect((await c.call("GetDatabaseUser", { databaseId: SEEDED.databases.open, userId })).user.id).toBe(userId);
    // DELETE .../invitations is POST .../invites/revoke in the document.
    await c.call("DeleteOrganizationInvitation", { orgId: SEEDED.org }, { email: "new.hire@northwind.example" });

    const lines = logged(from);
    expect(lines[0]).toBe("GET /api/v2/account 200");
    expect(lines[1]).toBe(`GET /api/v2/orgs/${SEEDED.org}/members?limit=2 200`);
    expect(lines).toContain(`GET /api/v2/users/${userId}/grants/${SEEDED.databases.open} 200`);
    expect(lines.at(-1)).toMatch(new RegExp(`^POST /api/v2/orgs/${SEEDED.org}/invites/revoke 20[04]$`));
    expect(lines.filter((l) => l.includes("/activity?")).length).toBe(Math.ceil(events.length / 600));
    for (const line of lines) expect(line).toMatch(/^\w+ \/api\/v2\/\S+ 20[04]$/);
  });

  it("trims the document's shared prefix from a base URL copied with it", async () => {
    const c = client({ openapi: RENAMED, baseUrl: `${emu.url}/api/v2/` });
    expect(c.baseUrl).toBe(emu.url);
    expect((await c.call("GetOrganization", { orgId: SEEDED.org })).id).toBe(SEEDED.org);
  });

  it("either side alone on the document misses the other: the built-in paths are not served", async () => {
    const builtIn = client({});
    const err = await builtIn.call("GetCurrentUser", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, path: "/v1/users/me", pathTemplate: "/v1/users/me" });
    // The path exists with another method: 405, as on the built-in routes.
    expect((await api(emu.url, emu.keys.orgAdmin, "DELETE", `/api/v2/orgs/${SEEDED.org}/invites/revoke`)).status).toBe(405);

    const plain = await startEmulator({ rateLimit: 0 });
    try {
      const renamed = new ReviewAdminClient({ baseUrl: plain.url, apiKey: plain.keys.orgAdmin, openapi: RENAMED });
      await expect(renamed.call("GetCurrentUser", {})).rejects.toMatchObject({ status: 404, path: "/api/v2/account" });
      await renamed.close();
    } finally {
      await plain.close();
    }
  });

  it("words a failure with the ids of the renamed path, from the template the client used", async () => {
    const c = client();
    const err = (await c.call("GetOrganizationUser", { orgId: SEEDED.org, userId: 999_999 }).catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({
      status: 404,
      path: `/api/v2/orgs/${SEEDED.org}/members/999999`,
      pathTemplate: "/api/v2/orgs/{orgId}/members/{userId}",
    });
    expect(describeCause(err)).toMatch(
      new RegExp(`^the service answered 404 .*\\(check that organization ${SEEDED.org} and user 999999 exist\\)$`),
    );

    const denied = (await c.call("GetDatabaseUsers", { databaseId: SEEDED.databases.restricted }).catch((e: unknown) => e)) as ApiError;
    expect(denied).toMatchObject({ status: 403, path: `/api/v2/dbs/${SEEDED.databases.restricted}/grants` });
    expect(describeCause(denied)).toBe(
      `the service answered 403 Forbidden (this needs DB_ADMIN on database ${SEEDED.databases.restricted}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess), which the API key in use lacks)`,
    );
  });
});

describe("a document that cannot be used", () => {
  it("is one ClientConfigError naming every operation", () => {
    const make = () => new ReviewAdminClient({ baseUrl: "https://api.example.com", apiKey: "K.ABCDEFGH.SECRET", openapi: BROKEN });
    expect(make).toThrow(ClientConfigError);
    expect(make).toThrow(`openapi: ${BROKEN}: 2 operations of the route table cannot be mapped: ${BROKEN_PROBLEMS}`);
    expect(
      () =>
        new ReviewAdminClient({ baseUrl: "https://api.example.com", apiKey: "K.ABCDEFGH.SECRET", openapi: path.join(dir, "nope.yaml") }),
    ).toThrow(`openapi: ${path.join(dir, "nope.yaml")}: cannot be read (no such file)`);
  });

  it("stops the emulator from starting, naming every operation", async () => {
    await expect(startEmulator({ openapi: BROKEN })).rejects.toThrow(
      new OpenApiError(BROKEN, "2 operations of the route table cannot be mapped", BROKEN_PROBLEMS.split("; ")),
    );
  });
});

describe("getClient", () => {
  it("shares a client per document: another document, or none, is another client", async () => {
    const opts = { baseUrl: emu.url, apiKey: emu.keys.orgAdmin };
    const renamed = getClient({ ...opts, openapi: RENAMED });
    expect(getClient({ ...opts, openapi: path.relative(process.cwd(), RENAMED) })).toBe(renamed);
    const builtIn = getClient(opts);
    expect(builtIn).not.toBe(renamed);
    expect(renamed.toJSON()).toMatchObject({ openapi: RENAMED });
    expect(builtIn.toJSON()).not.toHaveProperty("openapi");
    await Promise.all([renamed.close(), builtIn.close()]);
  });
});

describe("settings", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("reviewadmin:openapi and REVIEWADMIN_OPENAPI: read once, held as an absolute path, used by currentClient", async () => {
    const relative = path.relative(process.cwd(), RENAMED);
    expect(settingsFromConfig((k) => (k === "openapi" ? relative : undefined))).toEqual({ openapi: RENAMED });
    process.env.REVIEWADMIN_API_KEY = emu.keys.orgAdmin;
    process.env.REVIEWADMIN_BASE_URL = emu.url;
    process.env.REVIEWADMIN_OPENAPI = relative;
    expect(resolveSettings().openapi).toBe(RENAMED);
    const c = currentClient();
    expect(c.toJSON()).toMatchObject({ openapi: RENAMED });
    expect((await c.call("GetOrganization", { orgId: SEEDED.org })).id).toBe(SEEDED.org);
    await c.close();
  });

  it("a document that cannot be used fails in one line naming every operation, and how to compare", () => {
    const relative = path.relative(process.cwd(), BROKEN);
    expect(() => settingsFromConfig((k) => (k === "openapi" ? relative : undefined))).toThrow(
      new SettingsError(
        `reviewadmin: config reviewadmin:openapi names ${relative}, which cannot be used: 2 operations of the route table cannot be mapped: ${BROKEN_PROBLEMS}. ` +
          `Compare it with the built-in routes: npx --no-install pulumi-reviewadmin routes --openapi ${relative}`,
      ),
    );
    // A data source in a Pulumi program reads the program's config: the same line, never the built-in routes.
    process.env.PULUMI_CONFIG = JSON.stringify({ "reviewadmin:openapi": relative });
    expect(() => clientFor("getOrganizationMembers")).toThrow(
      `getOrganizationMembers: reviewadmin: config reviewadmin:openapi names ${relative}, which cannot be used: 2 operations of the route table cannot be mapped: `,
    );
    delete process.env.PULUMI_CONFIG;
    process.env.REVIEWADMIN_OPENAPI = "missing.yaml";
    expect(() => resolveSettings()).toThrow(
      "reviewadmin: environment variable REVIEWADMIN_OPENAPI names missing.yaml, which cannot be used: cannot be read (no such file). Compare it with the built-in routes: npx --no-install pulumi-reviewadmin routes --openapi missing.yaml",
    );
  });
});
