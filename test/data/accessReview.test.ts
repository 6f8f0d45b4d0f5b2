/**
 * The access matrix of an organization and its CSV and Markdown renderings; and the matrix of a
 * large organization read at the service's real rate limit without a 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "../../provider/client";
import * as data from "../../provider/data";
import { SEEDED, addSyntheticDatabases, addSyntheticMembers, startEmulator, type RunningEmulator } from "../../emulator";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

describe("access review", () => {
  it("getAccessMatrix: members, invitations, and database users, with unreadable databases recorded", async () => {
    const m = await data.getAccessMatrix({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(m.organization).toEqual({ id: SEEDED.org, name: "Northwind Legal" });
    const emails = m.members.map((x) => x.email);
    expect(emails).toEqual([...emails].sort());
    expect(m.members.find((x) => x.userId === SEEDED.users.orgAdmin)!.permissions).toEqual(["ORG_ADMIN"]);
    expect(m.members.some((x) => "lastActivity" in x)).toBe(false);
    expect(m.invitations.map((i) => [i.email, i.status])).toEqual([
      [SEEDED.invitations.expired, "expired"],
      [SEEDED.invitations.pending, "pending"],
    ]);
    expect(m.databases.map((d) => [d.databaseId, d.readable])).toEqual([
      [SEEDED.databases.open, true],
      [SEEDED.databases.restricted, false],
    ]);
    const open = m.databases[0];
    expect(open.users).toEqual([
      expect.objectContaining({
        userId: SEEDED.users.multiOrgMember,
        email: "margaret@northwind.example",
        member: true,
        permissions: ["DB_UPLOAD"],
      }),
    ]);
    expect(m.databases[1].notReadable).toBe(
      "not readable with this key (403 Forbidden: orgAdminAccess is off and the key is not DB_ADMIN on it)",
    );
    expect(m.summary).toMatchObject({
      orgAdmins: 1,
      pendingInvitations: 1,
      expiredInvitations: 1,
      databases: 2,
      unreadableDatabases: 1,
      databaseUsers: 1,
    });
    // Plain JSON.
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);

    // A database admin's own key can read the restricted database.
    s.emu.store.databases.setUser(SEEDED.databases.open, SEEDED.users.databaseAdmin, ["DB_LEGAL_HOLD", "DB_ADMIN"]);
    try {
      const again = await valueOf(data.getAccessMatrixOutput({ organizationId: SEEDED.org }, s.as("orgAdmin")));
      expect(again.databases[0].users.map((u) => [u.email, u.permissions])).toEqual([
        ["barbara@northwind.example", ["DB_ADMIN", "DB_LEGAL_HOLD"]],
        ["margaret@northwind.example", ["DB_UPLOAD"]],
      ]);
    } finally {
      s.emu.store.databases.setUser(SEEDED.databases.open, SEEDED.users.databaseAdmin, []);
    }
  });

  it("toCsv and toMarkdown are deterministic and show every grant", async () => {
    const a = await data.getAccessMatrix({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    const b = await data.getAccessMatrix({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(data.toCsv(a)).toBe(data.toCsv(b));
    expect(data.toMarkdown(a)).toBe(data.toMarkdown(b));

    const csv = data.toCsv(a).trimEnd().split("\n");
    expect(csv[0]).toBe("scope,scopeId,scopeName,userId,email,username,name,status,permissions,note");
    expect(csv).toContain(
      "organization,102,Northwind Legal,1001,ada@northwind.example,ada@northwind.example,Ada Lovelace,member,ORG_ADMIN,",
    );
    expect(csv).toContain(
      `organization,102,Northwind Legal,,${SEEDED.invitations.expired},,Late Joiner,invitation expired,LEGAL_HOLD_ADMIN,expires ${a.invitations[0].expiration}`,
    );
    expect(csv).toContain(
      "database,2001,Northwind v. Contoso,1007,margaret@northwind.example,margaret@northwind.example,Margaret Hamilton,active,DB_UPLOAD,",
    );
    expect(csv.some((l) => l.startsWith("database,2002,Internal Investigation,,,,,not readable,,"))).toBe(true);
    expect(csv).toHaveLength(1 + a.members.length + a.invitations.length + 1 + 1);

    const md = data.toMarkdown(a);
    expect(md).toContain("# Access review: Northwind Legal (organization 102)");
    expect(md).toContain("| ada@northwind.example | Ada Lovelace | 1001 | ORG_ADMIN |");
    expect(md).toContain("## Matrix");
    expect(md).toContain("| Person | Organization | Northwind v. Contoso (2001) | Internal Investigation (2002) |");
    expect(md).toContain("| margaret@northwind.example | CLOUD_MANAGEMENT_ADMIN | DB_UPLOAD | ? |");
    expect(md).toContain("_not readable with this key (403");
  });

  it("renderers escape CSV and Markdown special characters", () => {
    const m: data.AccessMatrix = {
      organization: { id: 1, name: 'A, "B" | C' },
      summary: {
        members: 1,
        orgAdmins: 0,
        pendingInvitations: 0,
        expiredInvitations: 0,
        databases: 0,
        unreadableDatabases: 0,
        databaseUsers: 0,
      },
      members: [{ userId: 7, email: "x@y.z", firstName: "Pipe|", lastName: "New\nLine", username: "x", permissions: [] }],
      invitations: [],
      databases: [],
    };
    expect(data.toCsv(m)).toBe(
      'scope,scopeId,scopeName,userId,email,username,name,status,permissions,note\norganization,1,"A, ""B"" | C",7,x@y.z,x,"Pipe| New\nLine",member,,\n',
    );
    expect(data.toMarkdown(m)).toContain("| x@y.z | Pipe\\| New Line | 7 | — |");
  });

  it("toCsv neutralizes cells a spreadsheet would run as formulas, and leaves numbers alone", () => {
    const m: data.AccessMatrix = {
      organization: { id: 1, name: '=HYPERLINK("http://evil.example","Click")' },
      summary: {
        members: 1,
        orgAdmins: 0,
        pendingInvitations: 0,
        expiredInvitations: 0,
        databases: 0,
        unreadableDatabases: 0,
        databaseUsers: 0,
      },
      members: [{ userId: 7, email: "@x.example", firstName: "+1", lastName: "-cmd", username: "-42", permissions: [] }],
      invitations: [],
      databases: [],
    };
    const [, row] = data.toCsv(m).split("\n");
    expect(row).toBe(`organization,1,"'=HYPERLINK(""http://evil.example"",""Click"")",7,'@x.example,-42,'+1 -cmd,member,,`);
  });

  it("getAccessMatrix without org admin fails with one clear line", async () => {
    const err = await failure(data.getAccessMatrix({ organizationId: SEEDED.org }, s.as("databaseAdmin")));
    expect(err.status).toBe(403);
    expect(err.message).toMatch(
      /^getAccessMatrix: reading the (members|invitations) of organization 102: the service answered 403 .*org admin of organization 102/,
    );
  });
});

describe("getAccessMatrix at the service's default rate limit", () => {
  let emu: RunningEmulator;

  beforeAll(async () => {
    // Default pacing on both sides: the emulator answers 429 above 25 requests/second per account,
    // and the client (default requestsPerSecond 25) must stay under it.
    emu = await startEmulator();
  });
  afterAll(async () => {
    await getClient({ baseUrl: emu.url, apiKey: emu.keys.orgKey }).close();
    await emu?.close();
  });

  it("an access matrix over 40 databases and 450 extra members reads everything without a 429", async () => {
    addSyntheticMembers(emu.store, SEEDED.org, 450);
    addSyntheticDatabases(emu.store, SEEDED.org, 38, 1);
    emu.traffic.log.reset();
    const started = performance.now();
    const m = await data.getAccessMatrix({ organizationId: SEEDED.org }, { settings: { baseUrl: emu.url, apiKey: emu.keys.orgKey } });
    const took = performance.now() - started;
    expect(m.databases).toHaveLength(40);
    expect(m.members.length).toBe(emu.store.members.of(SEEDED.org).length);
    expect(m.databases.filter((d) => d.readable && d.users.length === 1)).toHaveLength(39);
    const log = emu.traffic.log.list();
    expect(log.filter((e) => e.status === 429)).toEqual([]);
    // 1 org + 3 member pages + 1 invitations + 1 database page + 40 database-user lists, paced at 25/s.
    expect(log).toHaveLength(46);
    expect(took).toBeGreaterThan(1500);
  });
});
