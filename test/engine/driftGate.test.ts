/**
 * The rosters' drift gate under the real engine (provider/resources/support/unmanagedGate.ts): an
 * org admin and a database admin made in the web application, whom the program does not declare,
 * must not pass the GitOps drift job (`pulumi preview --refresh --expect-no-changes`) in silence.
 * By default (failOnPrivileged) refresh records and names them and reports drift, preview and up
 * fail naming each person and permission; declaring them or listing them in knownExceptions
 * accepts them; "report" warns only, "ignore" says nothing, "failOnAny" stops on anyone.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { RunError } from "../../harness/program/stack";
import * as reviewadmin from "../../provider";
import type { OnUnmanaged } from "../../provider/resources/support/rosterMode";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const world = useProgramWorld("drift-gate");

const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => "",
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );
const logsOf = (r: { logs: { line: string }[] }) => r.logs.map((l) => l.line).join("\n");

/** Who is in the organization and on database 2001 now, as the rosters' maps. */
function everyoneNow() {
  const store = world.emu.store;
  return {
    members: Object.fromEntries(
      store.membersOf(ORG).map((m) => [store.user(m.userId).email.toLowerCase(), { permissions: [...m.permissions] }]),
    ),
    users: Object.fromEntries(store.databaseUsersOf(DB).map((u) => [String(u.userId), [...u.permissions]])),
  };
}

/** Rosters (additive) holding `who` (default: everyone there now), with the gate settings given. */
function rosters(gate: { onUnmanaged?: OnUnmanaged; emails?: string[]; userIds?: number[] } = {}, who = everyoneNow()) {
  const { members, users } = who;
  return () => {
    new reviewadmin.OrganizationMembers("legal", {
      organizationId: ORG,
      mode: "additive",
      members,
      ...(gate.onUnmanaged ? { onUnmanaged: gate.onUnmanaged } : {}),
      ...(gate.emails ? { knownExceptions: gate.emails } : {}),
    });
    new reviewadmin.DatabaseUsers("nvc", {
      databaseId: DB,
      mode: "additive",
      users,
      ...(gate.onUnmanaged ? { onUnmanaged: gate.onUnmanaged } : {}),
      ...(gate.userIds ? { knownExceptions: gate.userIds } : {}),
    });
  };
}

/** In the web application: mallory@evil.example becomes an org admin, a member with no grant a DB_ADMIN of 2001. */
async function makeDrift(): Promise<{ mallory: number; dbAdmin: number }> {
  const added = await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
    email: "mallory@evil.example",
    firstName: "Mallory",
    lastName: "Evil",
    permissions: ["ORG_ADMIN"],
  });
  expect(added.status).toBe(201);
  const store = world.emu.store;
  const dbAdmin = store.membersOf(ORG).find((m) => !store.findDatabaseUser(DB, m.userId))!.userId;
  const granted = await control(world.emu.url, "PUT", `/databases/${DB}/users/${dbAdmin}`, { permissions: ["DB_ADMIN"] });
  expect(granted.status).toBeLessThan(300);
  return { mallory: world.emu.store.findUserByEmail("mallory@evil.example")!.id, dbAdmin };
}

describe("the drift gate (default: failOnPrivileged)", () => {
  it("an unmanaged ORG_ADMIN and DB_ADMIN fail the drift job, preview and up, named; accepting them passes", async () => {
    const s = world.freshStack();
    const before = everyoneNow();
    const program = rosters({}, before);
    await s.up(program);
    await s.preview(program, { refresh: true, expectNoChanges: true });

    const { dbAdmin } = await makeDrift();

    // The drift job of docs/gitops.md.
    const drift = await failureOf(s.preview(program, { refresh: true, expectNoChanges: true }));
    // It fails naming one of them: the engine stops at the first refusal, of whichever roster it diffs first.
    expect(drift).toMatch(new RegExp(`mallory@evil\\.example \\(ORG_ADMIN\\)|user ${dbAdmin}( \\([^)]*\\))? \\(DB_ADMIN\\)`));
    // Refresh records them, names them in a warning and reports drift; a preview then fails on both.
    const refresh = await s.refresh();
    expect(Object.fromEntries(refresh.steps.map((st) => [st.name, st.op]))).toEqual({ legal: "refresh-changed", nvc: "refresh-changed" });
    expect(logsOf(refresh)).toMatch(/mallory@evil\.example \(ORG_ADMIN\)/);
    expect(logsOf(refresh)).toMatch(new RegExp(`user ${dbAdmin}( \\([^)]*\\))? \\(DB_ADMIN\\)`));
    const orgGate =
      /OrganizationMembers of organization 102: 1 person the program does not declare holds privileged access: mallory@evil\.example \(ORG_ADMIN\)\. Declare them in the roster's members, or list their emails in knownExceptions/;
    const dbGate = new RegExp(
      `DatabaseUsers of database 2001: 1 person the program does not declare holds privileged access: user ${dbAdmin}( \\([^)]*\\))? \\(DB_ADMIN\\)\\. Declare them in the roster's users, or list their user ids in knownExceptions`,
    );
    // The engine stops at the first refusal (whichever roster it diffs first); each alone, then.
    const preview = await failureOf(s.preview(program));
    expect(orgGate.test(preview) || dbGate.test(preview), preview).toBe(true);
    expect(await failureOf(s.up(program))).toMatch(/holds privileged access/);
    expect(await failureOf(s.preview(rosters({ userIds: [dbAdmin] }, before)))).toMatch(orgGate);
    expect(await failureOf(s.preview(rosters({ emails: ["mallory@evil.example"] }, before)))).toMatch(dbGate);

    // Accepted as known exceptions: the drift job passes again, and the access stays as it is.
    const accepted = rosters({ emails: ["Mallory@Evil.example"], userIds: [dbAdmin] }, before);
    await s.up(accepted);
    await s.preview(accepted, { refresh: true, expectNoChanges: true });
    expect(world.emu.store.findUserByEmail("mallory@evil.example")).toBeDefined();
  });

  it("declaring the person in the roster accepts them too", async () => {
    const s = world.freshStack();
    await s.up(rosters());
    await makeDrift();
    // The program now lists everyone there (mallory and the new DB admin included).
    const declared = rosters();
    await s.up(declared);
    await s.preview(declared, { refresh: true, expectNoChanges: true });
  });
});

describe("the other settings", () => {
  it('"report" warns and passes; "ignore" passes in silence', async () => {
    const s = world.freshStack();
    await s.up(rosters({ onUnmanaged: "report" }));
    await makeDrift();
    const reported = await s.preview(rosters({ onUnmanaged: "report" }), { refresh: true });
    expect(logsOf(reported)).toMatch(/mallory@evil\.example \(ORG_ADMIN\)/);
    const ignoring = rosters({ onUnmanaged: "ignore" });
    await s.up(ignoring);
    const quiet = await s.preview(ignoring, { refresh: true, expectNoChanges: true });
    expect(logsOf(quiet)).not.toMatch(/mallory/);
  });

  it('"failOnAny" stops on an unmanaged person without any permission', async () => {
    const s = world.freshStack();
    const program = rosters({ onUnmanaged: "failOnAny" });
    await s.up(program);
    await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
      email: "quiet@northwind.example",
      firstName: "Q",
      lastName: "Uiet",
    });
    expect(await failureOf(s.preview(program, { refresh: true }))).toMatch(
      /2 people the program does not declare: new\.hire@northwind\.example \(invited, no permission\), quiet@northwind\.example \(no permission\)/,
    );
    // The default passes them: no privileged permission.
    await s.up(rosters());
  });
});
