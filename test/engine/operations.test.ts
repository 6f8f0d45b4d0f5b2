/**
 * The CLI's other operations under the real engine, on whole programs (inline, through the
 * Automation API):
 *
 * - refresh with drift on every resource kind: it never fails and never writes, and says which
 *   resources drifted (the engine calls each resource's Diff after its Read: lifecycle.ts);
 * - refresh whose drift would trip anti-lockout in that Diff: reported as drift, not refused;
 * - the API key rotated: refresh and destroy use the provider configuration saved at the last
 *   `up` (the engine's rule), so they fail with the old key revoked, with a message saying what
 *   to do; `up` stores the new key, after which both work;
 * - `--target`, `protect`, `retainOnDelete`, and `pulumi import` of a dynamic resource.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import { writePatternedFile } from "../support/files";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const U = SEEDED.users;
const world = useProgramWorld("operations");
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-operations-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const logLength = () => world.emu.traffic.log.list().length;
const writesSince = (since: number) =>
  world.emu.traffic.log
    .list()
    .slice(since)
    .filter((e) => e.method !== "GET" && !e.path.startsWith("/_"))
    .map((e) => `${e.method} ${e.operation}`);
const opsOf = (r: { steps: { name: string; op: string }[] }) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => "",
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );
const userId = (email: string) => world.emu.store.users.findByEmail(email)!.id;

describe("refresh with drift on every resource kind", () => {
  it("never fails nor writes, and reports each drifted resource", async () => {
    const s = world.freshStack();
    const upload = writePatternedFile(dir, "memo.eml", 2000).file;
    const csv = path.join(dir, "custodians.csv");
    fs.writeFileSync(csv, "Email,First Name,Last Name\nada@northwind.example,Ada,Lovelace\n");
    const margaret = userId("margaret@northwind.example");
    const program = () => {
      new reviewadmin.OrgMember("grace", { organizationId: ORG, email: "grace@northwind.example", permissions: ["AI_ADMIN"] });
      new reviewadmin.OrgMemberPermissions("margaret-perms", {
        organizationId: ORG,
        email: "margaret@northwind.example",
        permissions: ["CLOUD_MANAGEMENT_ADMIN"],
      });
      new reviewadmin.UserIdentifiers("margaret-ids", {
        organizationId: ORG,
        userId: margaret,
        identifiers: [{ abbreviation: "MH", label: "Margaret Hamilton" }],
      });
      new reviewadmin.DatabaseUserPermissions("alan-db", { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"] });
      new reviewadmin.Invitation("zoe", { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] });
      new reviewadmin.OrganizationMembers("legal", {
        organizationId: ORG,
        mode: "authoritative",
        protectedEmails: [SEEDED.invitations.pending, SEEDED.invitations.expired, "zoe@example.com"],
        members: Object.fromEntries(
          world.emu.store.members
            .of(ORG)
            .map((m) => world.emu.store.users.get(m.userId).email.toLowerCase())
            .map((e) => [
              e,
              e === "barbara@northwind.example" ? { userIdentifiers: [{ abbreviation: "BL", label: "Barbara Liskov" }] } : {},
            ]),
        ),
      });
      new reviewadmin.DatabaseUsers("nvc", {
        databaseId: DB,
        mode: "additive",
        onUnmanaged: "report",
        users: { [String(U.databaseAdmin)]: ["DB_ADMIN"] },
      });
      new reviewadmin.CustodianDirectorySync("custodians", { directoryId: SEEDED.directories.org, csvPath: csv });
      const ds = new reviewadmin.Dataset("mail", { databaseId: DB, name: "Mail" });
      new reviewadmin.SourceFile("memo", { databaseId: DB, datasetId: ds.datasetId, path: upload });
    };
    await s.up(program);
    await s.up(program, { expectNoChanges: true });

    // The web application changes something for most of them.
    const store = world.emu.store;
    store.members.update(ORG, userId("grace@northwind.example"), { permissions: [] });
    store.members.update(ORG, margaret, { permissions: ["ORG_ADMIN"], userIdentifiers: [] });
    store.databases.removeUser(DB, U.member);
    store.invitations.expire(ORG, "zoe@example.com");
    store.members.update(ORG, U.databaseAdmin, { userIdentifiers: [] });
    store.databases.setUser(DB, U.databaseAdmin, ["DB_UPLOAD"]);
    store.changed();

    const since = logLength();
    const refresh = await s.refresh();
    expect(writesSince(since)).toEqual([]);
    expect(opsOf(refresh)).toEqual({
      grace: "refresh-changed",
      "margaret-perms": "refresh-changed",
      "margaret-ids": "refresh-changed",
      "alan-db": "refresh-gone",
      zoe: "refresh-changed",
      legal: "refresh-changed",
      nvc: "refresh-changed",
      // No read endpoint for these: refresh keeps what the last sync or upload stored.
      custodians: "refresh-same",
      mail: "refresh-same",
      memo: "refresh-same",
    });
    // The next up puts the program's access back, and then nothing is left to do.
    await s.up(program);
    await s.up(program, { expectNoChanges: true });
  });

  it("drift whose repair anti-lockout would refuse is reported as drift by refresh, and refused only by up", async () => {
    // An organization key: no user of its own, so only "the last org admin" protects anyone.
    const s = world.freshStack("orgKey");
    const ada = userId("ada@northwind.example");
    const barbara = userId("barbara@northwind.example");
    const program = () =>
      void new reviewadmin.OrgMemberPermissions("barbara", { organizationId: ORG, email: "barbara@northwind.example", permissions: [] });
    await s.up(program);
    // In the web application Barbara becomes the only org admin.
    world.emu.store.members.update(ORG, barbara, { permissions: ["ORG_ADMIN"] });
    world.emu.store.members.update(ORG, ada, { permissions: [] });
    world.emu.store.changed();

    const since = logLength();
    const refresh = await s.refresh();
    expect(opsOf(refresh)).toEqual({ barbara: "refresh-changed" });
    expect(writesSince(since)).toEqual([]);
    expect(await failureOf(s.up(program))).toMatch(/refused: .* is the last org admin of organization 102/);
    expect(world.emu.store.members.get(ORG, barbara).permissions).toEqual(["ORG_ADMIN"]);
  });
});

describe("a preview that updates a roster", () => {
  it("gives resources reading its outputs only the new inputs: a grant whose user id comes from the roster shows as a replace the up does not do", async () => {
    const s = world.freshStack();
    const program = (withGrace: boolean) => () => {
      const roster = new reviewadmin.OrganizationMembers("members", {
        organizationId: ORG,
        mode: "additive",
        onUnmanaged: "report",
        members: {
          "alan@northwind.example": { permissions: [] },
          ...(withGrace ? { "grace@northwind.example": { permissions: ["AI_ADMIN" as const] } } : {}),
        },
      });
      // As examples/access-baseline does: the id is unknown while the roster's outputs are planned.
      const userId = roster.members.apply(
        (m): number => (m["alan@northwind.example"] as { userId?: number } | undefined)?.userId ?? (pulumi.unknown as unknown as number),
      );
      new reviewadmin.DatabaseUserPermissions("alan-db", { databaseId: DB, userId, permissions: ["DB_UPLOAD"] });
    };
    await s.up(program(false));
    // The engine's rule for dynamic providers (they cannot preview): the roster's outputs are its
    // new inputs, which hold no user ids, so the grant's user id is unknown and may change.
    expect(opsOf(await s.preview(program(true)))).toEqual({ members: "update", "alan-db": "replace" });
    expect(opsOf(await s.up(program(true)))).toEqual({ members: "update", "alan-db": "same" });
  });
});

describe("the API key rotated", () => {
  it("refresh and destroy use the key saved by the last up: they fail with the old one revoked, saying what to do; up stores the new one", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.DatabaseUserPermissions("alan-db", { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"] });
    await s.up(program);

    const old = world.emu.keys.orgAdmin!;
    const fresh = world.emu.store.apiKeys.mintUserKey(userId("ada@northwind.example"), "rotated").key;
    await s.setConfig("reviewadmin:apiKey", fresh, true);
    world.emu.store.apiKeys.revoke(old);

    const refreshFailure = await failureOf(s.refresh());
    expect(refreshFailure).toMatch(/the service answered 401/);
    expect(refreshFailure).toMatch(/`pulumi refresh` and `pulumi destroy` use the configuration saved by the last `pulumi up`/);
    expect(refreshFailure).not.toContain(old);
    // `--run-program` runs the program, whose provider takes today's config.
    expect(opsOf(await s.refresh({ runProgram: true }, program))).toEqual({ "alan-db": "refresh-same" });
    // An up with nothing to change stores the new configuration (an internal step: --expect-no-changes holds).
    await s.up(program, { expectNoChanges: true });
    expect(opsOf(await s.refresh())).toEqual({ "alan-db": "refresh-same" });
    expect(opsOf(await s.destroy())).toEqual({ "alan-db": "delete" });
    expect(world.emu.store.databases.findUser(DB, U.member)).toBeUndefined();
  });
});

describe("resource options", () => {
  it("--target updates the targeted resource only", async () => {
    const s = world.freshStack();
    const program = (permissions: ("DB_UPLOAD" | "DB_DELETE")[]) => () => {
      new reviewadmin.DatabaseUserPermissions("alan-db", { databaseId: DB, userId: U.member, permissions });
      new reviewadmin.DatabaseUserPermissions("linus-db", { databaseId: DB, userId: U.unaffiliated, permissions });
    };
    await s.up(program(["DB_UPLOAD"]));
    const target = s.find("alan-db")!.urn;
    const r = await s.up(program(["DB_DELETE"]), { target: [target] });
    // Untargeted resources are reported as "same": their step is skipped, their state kept.
    expect(opsOf(r)).toEqual({ "alan-db": "update", "linus-db": "same" });
    expect(world.emu.store.databases.findUser(DB, U.member)?.permissions).toEqual(["DB_DELETE"]);
    expect(world.emu.store.databases.findUser(DB, U.unaffiliated)?.permissions).toEqual(["DB_UPLOAD"]);
  });

  it("--target of a delete alone does not see that an untargeted roster now declares the person (a documented limit)", async () => {
    const s = world.freshStack();
    const others = Object.fromEntries(
      world.emu.store.members
        .of(ORG)
        .map((m) => world.emu.store.users.get(m.userId).email.toLowerCase())
        .filter((e) => e !== "alan@northwind.example")
        .map((e) => [e, {}]),
    );
    const roster = (members: Record<string, object>) =>
      new reviewadmin.OrganizationMembers("legal", {
        organizationId: ORG,
        mode: "authoritative",
        protectedEmails: [SEEDED.invitations.pending, SEEDED.invitations.expired],
        members,
      });
    await s.up(() => {
      roster(others);
      new reviewadmin.OrgMember("alan", { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] });
    });
    const alan = s.find("alan")!.urn;
    const moved = () => void roster({ ...others, "alan@northwind.example": { permissions: ["AI_ADMIN"] } });
    // Targeting the OrgMember only: Pulumi does not check the roster, so nothing claims Alan and
    // the delete removes him; the next full up adds him back through the roster.
    const targeted = await s.up(moved, { target: [alan] });
    expect(opsOf(targeted)).toMatchObject({ alan: "delete" });
    expect(world.emu.store.members.find(ORG, U.member)).toBeUndefined();
    await s.up(moved);
    expect(world.emu.store.members.find(ORG, U.member)?.permissions).toEqual(["AI_ADMIN"]);
  });

  it("a protected resource left out of the program fails the preview and the up, and nothing is removed", async () => {
    const s = world.freshStack();
    const grant = () =>
      void new reviewadmin.DatabaseUserPermissions(
        "alan-db",
        { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"] },
        { protect: true },
      );
    await s.up(grant);
    const since = logLength();
    expect(await failureOf(s.preview(() => {}))).toMatch(/protected/);
    expect(await failureOf(s.up(() => {}))).toMatch(/protected/);
    expect(writesSince(since)).toEqual([]);
    expect(world.emu.store.databases.findUser(DB, U.member)?.permissions).toEqual(["DB_UPLOAD"]);
  });

  it("retainOnDelete: a resource left out of the program leaves state and nothing is sent", async () => {
    const s = world.freshStack();
    await s.up(
      () =>
        void new reviewadmin.OrgMember(
          "grace",
          { organizationId: ORG, email: "grace@northwind.example", permissions: ["AI_ADMIN"] },
          { retainOnDelete: true },
        ),
    );
    const since = logLength();
    const r = await s.up(() => {});
    expect(opsOf(r)).toEqual({ grace: "delete" });
    expect(writesSince(since)).toEqual([]);
    expect(s.state.size).toBe(0);
    expect(world.emu.store.members.get(ORG, userId("grace@northwind.example")).permissions).toEqual(["AI_ADMIN"]);
  });

  it("pulumi import of a dynamic resource fails in the engine (the plugin gets no provider), and changes nothing", async () => {
    const s = world.freshStack();
    await s.up(() => {});
    const stack = await s.workspaceStack();
    const since = logLength();
    const failure = await stack
      .import({
        resources: [
          { type: "pulumi-nodejs:dynamic/reviewadmin:OrgMember", name: "grace", id: `${ORG}/${userId("grace@northwind.example")}` },
        ],
      })
      .then(
        () => "",
        (e: unknown) => String(e),
      );
    // The message users get comes from Pulumi's dynamic-provider plugin; the README points to
    // adoption (declare the resource: its create adopts what exists) and the exporter instead.
    expect(failure).toMatch(/importing failed/);
    expect(failure).toMatch(/error: code must be a string, not undefined/);
    expect(writesSince(since)).toEqual([]);
  });
});
