/**
 * `pulumi-reviewadmin state show` on `pulumi stack export` output written here: a small roster
 * stored as values, a large one deflated (contract/packed.ts), a roster an older version stored
 * as JSON text, and a per-person resource; text and --json (standard input: test/engine/olderStates.test.ts). The
 * engine's own export of a small roster is test/engine/olderStates.test.ts; the 28,007-person
 * stack's is timed by the enterprise benchmark (bench/export.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson, packValue } from "../../contract/packed";
import type { ShownResource } from "../../cli/state/showCommand";
import { runCli } from "./runCli";

const TYPE = "pulumi-nodejs:dynamic/reviewadmin:";
const urn = (kind: string, name: string) => `urn:pulumi:dev::access::${TYPE}${kind}::${name}`;
const resource = (kind: string, name: string, inputs: object, outputs: object) => ({
  urn: urn(kind, name),
  custom: true,
  type: TYPE + kind,
  inputs: { ...inputs, __provider: "exports.handler = ..." },
  outputs: { ...outputs, __provider: "exports.handler = ..." },
});

/** 2,000 people on database 2001: far above DEFLATE_ABOVE characters of JSON, so deflated. */
const many = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [String(5000 + i), ["DB_UPLOAD"]]));
const manyLive = Object.fromEntries(Object.keys(many).map((id) => [id, { permissions: ["DB_UPLOAD"], active: true }]));

const smallRoster = resource(
  "OrganizationMembers",
  "legal",
  {
    organizationId: 102,
    mode: "authoritative",
    members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] }, "bob@northwind.example": { expiresOn: "2026-12-31" } },
    onUnmanaged: "report",
    knownExceptions: ["linus@example.com"],
    protectedEmails: ["ada@northwind.example"],
    declaredElsewhere: {},
  },
  {
    organizationId: 102,
    mode: "authoritative",
    members: {
      "ada@northwind.example": { permissions: ["ORG_ADMIN"], status: "active", userId: 1001 },
      "bob@northwind.example": { permissions: ["AI_ADMIN"], status: "active", userId: 1012 },
    },
    managed: { "ada@northwind.example": ["permissions"], "bob@northwind.example": [] },
    expiresOn: { "bob@northwind.example": "2026-12-31" },
    onUnmanaged: "report",
    knownExceptions: ["linus@example.com"],
    protectedEmails: ["ada@northwind.example"],
    schemaVersion: 3,
  },
);
const largeRoster = resource(
  "DatabaseUsers",
  "nvc",
  { databaseId: 2001, mode: "additive", users: packValue(many) },
  { databaseId: 2001, mode: "additive", users: packValue(manyLive), managedUserIds: packValue(Object.keys(many).map(Number)) },
);
/** As versions before values stored a small roster: JSON text. */
const olderRoster = resource(
  "DatabaseUsers",
  "older",
  { databaseId: 2002, mode: "additive", users: canonicalJson({ "1003": ["DB_DELETE"] }), knownExceptions: canonicalJson([1004]) },
  {
    databaseId: 2002,
    mode: "additive",
    users: canonicalJson({ "1003": { permissions: ["DB_DELETE"], active: true } }),
    managedUserIds: canonicalJson([1003]),
    knownExceptions: canonicalJson([1004]),
  },
);
const person = resource(
  "OrgMember",
  "alan",
  { organizationId: 102, email: "alan@northwind.example", permissions: ["AI_ADMIN"], firstName: "Alan" },
  { organizationId: 102, email: "alan@northwind.example", permissions: ["AI_ADMIN"], firstName: "Alan", status: "active", userId: 1010 },
);
const exported = {
  version: 3,
  deployment: {
    manifest: {},
    resources: [
      { urn: "urn:pulumi:dev::access::pulumi:pulumi:Stack::access-dev", type: "pulumi:pulumi:Stack" },
      smallRoster,
      largeRoster,
      olderRoster,
      person,
    ],
  },
};

function exportFile(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-state-show-")), "state.json");
  fs.writeFileSync(file, JSON.stringify(exported));
  return file;
}

describe("state show", () => {
  it("prints each resource's scope, mode, settings and people, whichever form the state holds them in", async () => {
    const file = exportFile();
    const r = await runCli(["state", "show", "--stack-state", file]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`What state file ${file} declares (4 resources of pulumi-reviewadmin)`);
    // A small roster, stored as values: the declared people (from `managed`), the settings as inputs gave them.
    expect(r.out).toContain(
      [
        'OrganizationMembers "legal"  organization 102  authoritative',
        "  knownExceptions: linus@example.com",
        "  onUnmanaged: report",
        "  protectedEmails: ada@northwind.example",
        "  people (2):",
        "    ada@northwind.example (user 1001)  ORG_ADMIN  active",
        "    bob@northwind.example (user 1012)  permissions not managed  until 2026-12-31  active",
      ].join("\n"),
    );
    // A large roster, deflated: every person read back.
    expect(r.out).toContain('DatabaseUsers "nvc"  database 2001  additive\n  people (2000):\n    user 5000  DB_UPLOAD\n');
    expect(r.out).toContain("    user 6999  DB_UPLOAD\n");
    // A roster an older version stored as JSON text.
    expect(r.out).toContain(
      'DatabaseUsers "older"  database 2002  additive\n  knownExceptions: 1004\n  people (1):\n    user 1003  DB_DELETE\n',
    );
    expect(r.out).toContain(
      'OrgMember "alan"  organization 102\n  firstName: Alan\n  people (1):\n    alan@northwind.example (user 1010)  AI_ADMIN  active\n',
    );
    expect(r.out).toMatch(/\n2004 people declared by 4 resources\.\n$/);
    expect(r.out).not.toMatch(/deflate:|__provider/);
  });

  it("--json: one document, the same reading", async () => {
    const file = exportFile();
    const r = await runCli(["state", "show", "--stack-state", file, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { source: string; resources: ShownResource[] };
    expect(doc.source).toBe(`state file ${file}`);
    expect(doc.resources.map((x) => [x.kind, x.name, x.scope, x.people.length])).toEqual([
      ["OrganizationMembers", "legal", "organization 102", 2],
      ["DatabaseUsers", "nvc", "database 2001", 2000],
      ["DatabaseUsers", "older", "database 2002", 1],
      ["OrgMember", "alan", "organization 102", 1],
    ]);
    expect(doc.resources[0]!.settings).toEqual({
      onUnmanaged: "report",
      knownExceptions: ["linus@example.com"],
      protectedEmails: ["ada@northwind.example"],
    });
    expect(doc.resources[0]!.people[1]).toEqual({
      email: "bob@northwind.example",
      userId: 1012,
      permissions: null,
      expiresOn: "2026-12-31",
      status: "active",
    });
    expect(doc.resources[2]!.settings).toEqual({ knownExceptions: [1004] });
  });

  it("says what to give, and refuses what is not an export", async () => {
    expect(await runCli(["state", "show"])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/give --stack NAME or --stack-state FILE/),
    });
    expect(await runCli(["state"])).toMatchObject({ code: 2, err: expect.stringMatching(/give a subcommand: show/) });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-state-show-")), "not.json");
    fs.writeFileSync(file, "{}");
    expect((await runCli(["state", "show", "--stack-state", file])).err).toMatch(/is not the output of `pulumi stack export`/);
    expect((await runCli(["state", "show", "--help"])).out).toMatch(/^Usage: pulumi-reviewadmin state show \[options\]/);
  });
});
