/**
 * `pulumi-reviewadmin doctor` against the emulator, with a key of each seeded role, a bad key, a
 * key without admin rights, wrong base URLs (nothing listening, a plain http server answering
 * HTML 404s, plain http to a remote host) and a service whose E2 knows no user for an
 * organization key, each run in this process. Every run is checked for its lines, its exit code,
 * that it only read, and that neither the key nor its secret part appears anywhere in what it
 * printed. The compiled bin, and a stack's config read by the Pulumi CLI: test/engine/doctor.test.ts.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import type { DoctorReport } from "../../cli/doctor/report";
import { DOCTOR_ENV as ENV, section } from "./doctorReport";
import { runCli } from "./runCli";

const repoRoot = path.resolve(__dirname, "../..");
let emu: RunningEmulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu?.close();
});

/** Runs the doctor with these settings in the environment (others unset), and checks that the key never shows. */
/** The doctor on the environment variables only (`--env`: the repository's own Pulumi.yaml has no stack to read). */
async function doctor(env: Partial<Record<(typeof ENV)[number], string>>, args: string[] = []) {
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, env);
  try {
    const r = await runCli(["doctor", ...(args.includes("--cwd") ? [] : ["--env"]), ...args]);
    const key = env.REVIEWADMIN_API_KEY;
    if (key) {
      const secret = key.split(".").at(-1)!;
      expect(r.out + r.err).not.toContain(key);
      expect(r.out + r.err).not.toContain(secret);
    }
    return r;
  } finally {
    for (const k of ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

const withKey = (name: string, extra: Record<string, string> = {}) => ({
  REVIEWADMIN_API_KEY: emu.keys[name]!,
  REVIEWADMIN_BASE_URL: emu.url,
  ...extra,
});
const keyId = (name: string) => emu.keys[name]!.split(".")[1]!;
/** Methods of the requests the emulator logged since `from`. */
const methodsSince = (from: number) =>
  emu.traffic.log
    .list()
    .filter((e) => e.seq > from)
    .map((e) => e.method);
const lastSeq = () => emu.traffic.log.list().at(-1)?.seq ?? 0;

describe("doctor with the seeded keys", () => {
  it("an org admin's key: who, what it administers, what each resource kind can do; reads only", async () => {
    const before = lastSeq();
    const r = await doctor(withKey("orgAdmin"));
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.out).toMatch(/^pulumi-reviewadmin doctor\n/);
    expect(section(r.out, "base URL")).toBe(`base URL      ${emu.url} (REVIEWADMIN_BASE_URL)`);
    expect(section(r.out, "key")).toBe(`key           ${keyId("orgAdmin")} (the key id; the rest of the key is never shown)`);
    expect(section(r.out, "acts as")).toBe("acts as       Ada Lovelace <ada@northwind.example>, user 1001");
    expect(section(r.out, "organizations")).toBe("organizations 102 Northwind Legal: org admin, member (permissions: ORG_ADMIN)");
    expect(section(r.out, "databases")).toBe(
      [
        "databases     2001 Northwind v. Contoso (organization 102): manage users and upload, as org admin of 102",
        "2002 Internal Investigation (organization 102): summary only (orgAdminAccess off, and no DB_ADMIN)",
      ].join("\n"),
    );
    const can = section(r.out, "can manage");
    expect(can).toContain(
      "OrgMember, OrgMemberPermissions, UserIdentifiers, Invitation, OrganizationMembers: organization 102 Northwind Legal",
    );
    expect(can).toContain("DatabaseUserPermissions, DatabaseUsers, EthicalWall: database 2001 Northwind v. Contoso\n");
    expect(can).toContain("CustodianDirectorySync: directories of organization 102 Northwind Legal\n");
    expect(section(r.out, "rate")).toMatch(
      /^rate {10}25 requests\/s configured; the service allows 25\/s per user account.*\nthis check sent 7 requests \(no retry, no 429\) in \d+\.\d s$/,
    );
    expect(section(r.out, "routes")).toBe(
      "routes        7 read-only calls answered as expected (GET /v1/users/me, GET /v1/organizations, GET /v1/organizations/{orgId}/users, GET /v1/organizations/{orgId}/users/{userId}, GET /v1/databases, GET /v1/databases/{databaseId}/users)",
    );
    expect(r.out).toContain(
      "\nwarning: org admin access is turned off on database 2002 Internal Investigation: DatabaseUserPermissions, DatabaseUsers, Dataset and SourceFile will be refused there",
    );
    expect(r.out).toMatch(/\n {2}fix: grant a person's key DB_ADMIN on those databases .*\n\nOK: ready to use \(1 warning\)\n$/);
    // Read-only, and the count it printed is what the service saw.
    expect(methodsSince(before)).toEqual(Array(7).fill("GET"));
  });

  it("an organization-level key: read as such, org admin of its organization", async () => {
    const r = await doctor(withKey("orgKey"));
    expect(r.code).toBe(0);
    expect(section(r.out, "acts as")).toMatch(
      new RegExp(
        `^acts as {7}an organization-level key of 102 Northwind Legal \\(GET /v1/users/me: API key ${keyId("orgKey")} <apikey-\\w+@keys\\.invalid>, user \\d+\\)$`,
      ),
    );
    expect(section(r.out, "organizations")).toBe("organizations 102 Northwind Legal: org admin");
    // An organization key has no DB_UPLOAD of its own to guess about.
    expect(section(r.out, "can manage")).toContain("Dataset, SourceFile: database 2001 Northwind v. Contoso\n");
  });

  it("a parent organization's key: org admin of the parent, parent org admin of its sub-organizations", async () => {
    const r = await doctor(withKey("parentOrgAdmin"));
    expect(r.code).toBe(0);
    expect(section(r.out, "organizations")).toBe(
      [
        "organizations 101 Northwind Holdings: org admin",
        "102 Northwind Legal: parent org admin",
        "103 Northwind Compliance: parent org admin",
      ].join("\n"),
    );
    expect(section(r.out, "databases")).toBe(
      "databases     2005 Board Review (organization 101): manage users and upload, as org admin of 101",
    );
    const can = section(r.out, "can manage");
    expect(can).toContain(
      "OrgMember, OrgMemberPermissions, UserIdentifiers, Invitation, OrganizationMembers: organization 101 Northwind Holdings\n",
    );
    expect(can).toContain(
      "data sources (billing, activity, projects): organization 101 Northwind Holdings; organization 102 Northwind Legal; organization 103 Northwind Compliance",
    );
    expect(r.out).toMatch(/\nOK: ready to use\n$/);
  });

  it("a parent org admin's own key: member of a sub-organization too", async () => {
    const r = await doctor(withKey("parentAdminUser"));
    expect(r.code).toBe(0);
    expect(section(r.out, "organizations")).toBe(
      [
        "organizations 101 Northwind Holdings: org admin, member (permissions: ORG_ADMIN)",
        "102 Northwind Legal: parent org admin, member",
        "103 Northwind Compliance: parent org admin",
      ].join("\n"),
    );
    expect(section(r.out, "can manage")).toContain(
      "CustodianDirectorySync: directories of organization 101 Northwind Holdings; maybe directories of organization 102 Northwind Legal, if the user holds LEGAL_HOLD_ADMIN there",
    );
  });

  it("a database admin's key: usable for its database, with a warning for the member resources", async () => {
    const r = await doctor(withKey("databaseAdmin"));
    expect(r.code).toBe(0);
    expect(section(r.out, "organizations")).toBe("organizations 102 Northwind Legal: member");
    expect(section(r.out, "databases")).toBe(
      "databases     2002 Internal Investigation (organization 102): manage users and upload, as DB_ADMIN",
    );
    expect(section(r.out, "can manage")).toContain(
      "OrgMember, OrgMemberPermissions, UserIdentifiers, Invitation, OrganizationMembers: nowhere\n",
    );
    expect(r.out).toContain(
      "\nwarning: the key's user (Barbara Liskov) is org admin of no organization: OrgMember, OrgMemberPermissions, UserIdentifiers, Invitation and OrganizationMembers will be refused (they need org admin of the organization)\n" +
        "  fix: use an organization-level key (it carries the org admin role) or the key of an org admin of the organizations to manage; this key works for the databases listed\n",
    );
  });

  it.each(["member", "noAccess", "legalHoldAdmin"])(
    "a key without admin rights (%s) does not pass, and says why and what to do",
    async (name) => {
      const r = await doctor(withKey(name));
      expect(r.code).toBe(1);
      expect(section(r.out, "databases")).toBe("databases     none administered (GET /v1/databases lists none)");
      expect(r.out).toMatch(
        /\nerror: the key's user \([\w ]+\) is org admin of no organization and administers no database \(member of \d+ [\w ]+\): nothing this check can confirm will work with it\n/,
      );
      expect(r.out).toContain("  fix: use an organization-level key (it carries the org admin role) or the key of an org admin");
      expect(r.out).toContain("check it with --custodians-only");
      expect(r.out).toMatch(/\nNOT READY: 1 problem blocks use\n$/);
    },
  );

  it("--custodians-only: a member key passes with a warning, since LEGAL_HOLD_ADMIN cannot be read", async () => {
    const r = await doctor(withKey("legalHoldAdmin"), ["--custodians-only"]);
    expect(r.code).toBe(0);
    expect(section(r.out, "can manage")).toContain(
      "CustodianDirectorySync: nowhere; maybe directories of organization 102 Northwind Legal, if the user holds LEGAL_HOLD_ADMIN there (only org admins can read that permission)",
    );
    expect(r.out).toContain(
      "\nwarning: the key's user (Frances Allen) is org admin of no organization (member of 102 Northwind Legal): CustodianDirectorySync works only where the user holds LEGAL_HOLD_ADMIN",
    );
    // A key in no organization cannot be a legal hold admin anywhere.
    expect((await doctor(withKey("unaffiliated"), ["--custodians-only"])).code).toBe(1);
  });

  it("--json: the same findings as data", async () => {
    const r = await doctor(withKey("databaseAdmin"), ["--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report).toMatchObject({
      ok: true,
      baseUrl: emu.url,
      keyId: keyId("databaseAdmin"),
      identity: { kind: "user", userId: 1004, name: "Barbara Liskov", email: "barbara@northwind.example" },
      organizations: [{ id: 102, name: "Northwind Legal", roles: ["member"] }],
      databases: [{ id: 2002, access: "DB_ADMIN", manageUsers: true, upload: true, confirmed: true, orgAdminAccess: false }],
      rate: { configured: 25, serviceLimit: 25, spent: { requests: 4, retries: 0, throttled: 0 } },
    });
    expect(report.problems.map((p) => `${p.severity} ${p.code}`)).toEqual(["warning no-org-admin"]);
    expect(report.routes.map((c) => `${c.id} ${c.outcome} ${c.asExpected}`)).toEqual([
      "E2 ok true",
      "E3 ok true",
      "E1 ok true",
      "E23 ok true",
    ]);
    expect(report.capabilities.find((c) => c.kinds.includes("DatabaseUsers"))).toEqual({
      kinds: ["DatabaseUserPermissions", "DatabaseUsers", "EthicalWall"],
      where: ["database 2002 Internal Investigation"],
      maybe: [],
      needs: "DB_ADMIN on the database, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
    });
  });

  it("a rate above the service's limit is a warning with the number to use", async () => {
    const r = await doctor(withKey("orgAdmin", { REVIEWADMIN_REQUESTS_PER_SECOND: "40" }));
    expect(r.code).toBe(0);
    expect(section(r.out, "rate")).toMatch(/^rate {10}40 requests\/s configured/);
    expect(r.out).toContain(
      "\nwarning: REVIEWADMIN_REQUESTS_PER_SECOND is 40, above the service's 25 requests per second per user account",
    );
    expect(r.out).toContain("  fix: set it to 25 or less");
  });
});

describe("doctor with the routes of an OpenAPI document (REVIEWADMIN_OPENAPI)", () => {
  const renamed = path.join(repoRoot, "test/fixtures/openapi/renamed.yaml");

  it("checks the key on the document's routes, and says where the routes come from", async () => {
    const other = await startEmulator({ openapi: renamed });
    try {
      const r = await doctor({ REVIEWADMIN_API_KEY: other.keys.orgAdmin!, REVIEWADMIN_BASE_URL: other.url, REVIEWADMIN_OPENAPI: renamed });
      expect(r.code, r.out).toBe(0);
      expect(section(r.out, "route table")).toBe(`route table   from ${renamed} (REVIEWADMIN_OPENAPI)`);
      expect(section(r.out, "routes")).toMatch(/^routes {8}\d+ read-only calls answered as expected/);
      expect(other.traffic.log.list().every((e) => e.path.startsWith("/api/v2/"))).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("a document the service does not follow: the error shows the document's path", async () => {
    const r = await doctor({ ...withKey("orgAdmin"), REVIEWADMIN_OPENAPI: renamed });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "\nerror: GET /api/v2/orgs answered 404 path /api/v2/orgs not found, which the route table does not expect for any valid key\n" +
        "  fix: compare the routes with the vendor's OpenAPI document: `pulumi-reviewadmin routes --openapi FILE`; when they differ, set REVIEWADMIN_OPENAPI",
    );
  });

  it("a document that cannot be used: one error naming each operation, and what to do", async () => {
    const r = await doctor({ ...withKey("orgAdmin"), REVIEWADMIN_OPENAPI: path.join(repoRoot, "package.json") });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `\nerror: environment variable REVIEWADMIN_OPENAPI names ${path.join(repoRoot, "package.json")}, which cannot be used: is not valid JSON`.slice(
        0,
        60,
      ),
    );
    expect(r.out).toContain("is not an OpenAPI 3.x document (its openapi field is missing)\n");
    expect(r.out).toContain(
      "  fix: correct the document (it is yours to edit: add the operations it lacks, or correct their operationId) or unset REVIEWADMIN_OPENAPI;",
    );
  });
});

describe("doctor finds what blocks use", () => {
  it("a key the service does not know: per region, disabled after 90 days idle, revoked", async () => {
    const bad = `ra.WRONGKEY.${"X".repeat(56)}`;
    const r = await doctor({ REVIEWADMIN_API_KEY: bad, REVIEWADMIN_BASE_URL: emu.url });
    expect(r.code).toBe(1);
    expect(section(r.out, "key")).toBe("key           WRONGKEY (the key id; the rest of the key is never shown)");
    expect(section(r.out, "routes")).toBe(
      "routes        1 read-only call (GET /v1/users/me); 1 answer not as expected:\nGET /v1/users/me: 401 Unauthorized: invalid API key",
    );
    expect(r.out).toContain(
      `\nerror: the service at ${emu.url} does not accept this key: GET /v1/users/me answered 401 Unauthorized: invalid API key\n`,
    );
    expect(r.out).toContain(
      "  fix: the API key is missing, invalid, disabled or revoked: check reviewadmin:apiKey / REVIEWADMIN_API_KEY, and that the key was made in the region of reviewadmin:baseUrl (keys are per region). A key unused for 90 days is disabled",
    );
    expect(r.out).not.toContain("acts as");
  });

  it("a base URL where a plain web server answers 404 pages", async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<!doctype html><html><body><h1>Not Found</h1></body></html>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await doctor({ REVIEWADMIN_API_KEY: emu.keys.orgAdmin!, REVIEWADMIN_BASE_URL: url });
      expect(r.code).toBe(1);
      expect(r.out).toContain(
        `\nerror: ${url} does not answer like the administration API: GET /v1/users/me answered 404 with an HTML page\n`,
      );
      expect(r.out).toContain(
        "  fix: set reviewadmin:baseUrl / REVIEWADMIN_BASE_URL to the API address of the region where the key was made, without the /v1 path",
      );
    } finally {
      server.close();
    }
  });

  it("a base URL where nothing listens, or plain http to another host, or no URL at all", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nothing = await doctor({ REVIEWADMIN_API_KEY: emu.keys.orgAdmin!, REVIEWADMIN_BASE_URL: url });
    expect(nothing.code).toBe(1);
    expect(nothing.out).toMatch(
      new RegExp(
        `\\nerror: nothing answers at ${url}: GET /v1/users/me got no answer \\(ECONNREFUSED .*\\)\\n  fix: nothing listens at reviewadmin:baseUrl: check the address and port`,
      ),
    );

    const plain = await doctor({ REVIEWADMIN_API_KEY: emu.keys.orgAdmin!, REVIEWADMIN_BASE_URL: "http://api.example.com" });
    expect(plain.code).toBe(1);
    expect(plain.out).toContain(
      "\nerror: the base URL http://api.example.com cannot be used: baseUrl http://api.example.com uses plain http to a host that is not loopback",
    );
    expect(plain.out).toContain("  fix: use the https:// address of your region's API;");

    const none = await doctor({ REVIEWADMIN_API_KEY: emu.keys.orgAdmin! });
    expect(none.code).toBe(1);
    expect(none.out).toContain("\nerror: no base URL is set (REVIEWADMIN_BASE_URL); keys are per region, so there is no default\n");
    const noKey = await doctor({ REVIEWADMIN_BASE_URL: emu.url });
    expect(noKey.out).toContain(
      "\nerror: no API key is set (REVIEWADMIN_API_KEY)\n  fix: in a Pulumi project the doctor reads the selected stack's config (or --stack NAME); elsewhere: export REVIEWADMIN_API_KEY=<key>",
    );
  });

  it("--base-url tries another address with the same key, and a copied /v1 is dropped", async () => {
    const r = await doctor({ REVIEWADMIN_API_KEY: emu.keys.orgKey!, REVIEWADMIN_BASE_URL: "http://127.0.0.1:9" }, [
      "--base-url",
      `${emu.url}/v1/`,
    ]);
    expect(r.code).toBe(0);
    expect(section(r.out, "base URL")).toBe(`base URL      ${emu.url} (--base-url)`);
  });

  it("a service whose E2 knows no user for an organization key: the organization comes from E3 and E18", async () => {
    // A proxy in front of the emulator that answers E2 the way a service might for a key without a user.
    const proxy = http.createServer((req, res) => {
      if (req.url === "/v1/users/me") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ title: "Not Found: no user for this key", status: 404 }));
        return;
      }
      const target = new URL(req.url!, emu.url);
      const upstream = http.request(target, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const r = await doctor(
        {
          REVIEWADMIN_API_KEY: emu.keys.parentOrgAdmin!,
          REVIEWADMIN_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        },
        ["--json"],
      );
      const report = JSON.parse(r.out) as DoctorReport;
      expect(r.code).toBe(0);
      expect(report.identity).toEqual({ kind: "organization" });
      expect(report.organizations.map((o) => `${o.id}: ${o.roles.join(", ")}`)).toEqual([
        "101: org admin",
        "102: parent org admin",
        "103: parent org admin",
      ]);
      // Every visible organization probed with E18: the sub-organizations refuse, as they should.
      expect(report.routes.map((c) => `${c.id} ${c.outcome} ${c.asExpected}`)).toEqual([
        "E2 404 true",
        "E3 ok true",
        "E18 ok true",
        "E18 403 true",
        "E18 403 true",
        "E1 ok true",
        "E23 ok true",
      ]);
      expect(report.routes[0]!.note).toBe("no user behind this key: an organization-level key");
      const text = await doctor({
        REVIEWADMIN_API_KEY: emu.keys.parentOrgAdmin!,
        REVIEWADMIN_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      });
      expect(section(text.out, "acts as")).toBe(
        "acts as       an organization-level key of 101 Northwind Holdings (GET /v1/users/me answers no user for it)",
      );
    } finally {
      proxy.close();
    }
  });
});
