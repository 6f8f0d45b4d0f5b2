/**
 * The rosters' drift gate under the real engine (provider/access/gate.ts). It
 * judges drift, not the world: people the program does not declare who were there when it first
 * applied a roster are said once and recorded (`foundWhenAdopted`), so a program that passes once
 * passes again with nothing changed. Someone made an org admin or a DB_ADMIN in the web application
 * later waits for a decision: the drift job and the preview fail naming them once (with who made
 * them one, from the activity log) and without a stack trace; an up applies every other change and
 * repair and then fails naming them; refresh names them and reports drift. Accepting them
 * (knownExceptions) is a change of the roster, shown by the preview and stored by the up, after
 * which every job is clean. "report" warns, "ignore" says nothing, "failOnAny" stops on anyone.
 */
import { unpackProps } from "../../contract/packed";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { EngineStack } from "../../harness/engineStack";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import type { OnUnmanaged } from "../../provider/access/rosterMode";
import { control } from "../support/emulatorHttp";
import { useProgramWorld, writesFrom } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const world = useProgramWorld("drift-gate");

const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => "",
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );
const logsOf = (r: { logs: { line: string }[] }) => r.logs.map((l) => l.line).join("\n");
/** How many times `text` occurs in `within`. */
const count = (within: string, text: string) => within.split(text).length - 1;
/** The stored outputs of the resource named `name`. */
/** A resource's stored outputs, a roster's maps read back where packed (contract/packed.ts). */
const outputsOf = (s: EngineStack, name: string) => {
  const e = [...s.state.values()].find((x) => x.urn.endsWith(`::${name}`))!;
  return unpackProps(e.type.split(":").pop()!, e.outputs);
};

type Who = { members: Record<string, { permissions: string[] }>; users: Record<string, string[]> };

/** Who is in the organization and on database 2001 now, as the rosters' maps. */
function everyoneNow(): Who {
  const store = world.emu.store;
  return {
    members: Object.fromEntries(
      store.members.of(ORG).map((m) => [store.users.get(m.userId).email.toLowerCase(), { permissions: [...m.permissions] }]),
    ),
    users: Object.fromEntries(store.databases.usersOf(DB).map((u) => [String(u.userId), [...u.permissions]])),
  };
}

/** Rosters (additive) holding `who` (default: everyone there now), with the gate settings given. */
function rosters(gate: { onUnmanaged?: OnUnmanaged; emails?: string[]; userIds?: number[] } = {}, who: Who = everyoneNow()) {
  const { members, users } = who;
  return () => {
    new reviewadmin.OrganizationMembers("legal", {
      organizationId: ORG,
      mode: "additive",
      members: members as Record<string, reviewadmin.RosterMemberInput>,
      ...(gate.onUnmanaged ? { onUnmanaged: gate.onUnmanaged } : {}),
      ...(gate.emails ? { knownExceptions: gate.emails } : {}),
    });
    new reviewadmin.DatabaseUsers("nvc", {
      databaseId: DB,
      mode: "additive",
      users: users as reviewadmin.DatabaseUsersArgs["users"],
      ...(gate.onUnmanaged ? { onUnmanaged: gate.onUnmanaged } : {}),
      ...(gate.userIds ? { knownExceptions: gate.userIds } : {}),
    });
  };
}

/** In the web application, by Frances (user 1005): mallory@evil.example becomes an org admin, a member with no grant a DB_ADMIN of 2001. */
async function makeDrift(): Promise<{ dbAdmin: number }> {
  await control(world.emu.url, "POST", "/clock", { advanceMs: 5000 }); // after the program's last apply
  const added = await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
    email: "mallory@evil.example",
    firstName: "Mallory",
    lastName: "Evil",
    permissions: ["ORG_ADMIN"],
    actingUserId: SEEDED.users.legalHoldAdmin,
  });
  expect(added.status).toBe(201);
  const store = world.emu.store;
  const dbAdmin = store.members.of(ORG).find((m) => !store.databases.findUser(DB, m.userId) && m.userId !== added.body.data.id)!.userId;
  const granted = await control(world.emu.url, "PUT", `/databases/${DB}/users/${dbAdmin}`, {
    permissions: ["DB_ADMIN"],
    actingUserId: SEEDED.users.legalHoldAdmin,
  });
  expect(granted.status).toBeLessThan(300);
  return { dbAdmin };
}

describe("people there before the program", () => {
  it("are said once and recorded: the program passes again with nothing changed, and its next change applies", async () => {
    const s = world.freshStack();
    // Frances (LEGAL_HOLD_ADMIN) and Barbara (user 1004, made DB_ADMIN of 2001 before the program) are there, and undeclared.
    await control(world.emu.url, "PUT", `/databases/${DB}/users/${SEEDED.users.databaseAdmin}`, { permissions: ["DB_ADMIN"] });
    const who = everyoneNow();
    delete who.members["frances@northwind.example"];
    delete who.users[String(SEEDED.users.databaseAdmin)];
    const program = rosters({}, who);

    const preview = await s.preview(program);
    expect(logsOf(preview)).toMatch(/frances@northwind\.example \(LEGAL_HOLD_ADMIN\)\. The first up records them/);
    const first = await s.up(program);
    const said = logsOf(first);
    expect(count(said, "frances@northwind.example (LEGAL_HOLD_ADMIN)")).toBe(1);
    expect(said).toMatch(/already: frances@northwind\.example \(LEGAL_HOLD_ADMIN\)\. Recorded as found when the roster was first applied/);
    expect(count(said, `user ${SEEDED.users.databaseAdmin} (barbara@northwind.example) (DB_ADMIN`)).toBe(1);
    expect(outputsOf(s, "legal").foundWhenAdopted).toEqual({ "frances@northwind.example": ["LEGAL_HOLD_ADMIN"] });
    expect(outputsOf(s, "nvc").foundWhenAdopted).toEqual({ [String(SEEDED.users.databaseAdmin)]: ["DB_ADMIN"] });

    // Day two, nothing changed: the drift job, a preview and an up pass, and say nothing of them.
    const writes = writesFrom(world.emu);
    const drift = await s.preview(program, { refresh: true, expectNoChanges: true });
    const again = await s.up(program);
    expect(again.changes).toBe(0);
    expect(logsOf(drift) + logsOf(again)).not.toMatch(/frances|barbara/);
    expect(writes()).toEqual([]);

    // Then one change: applied.
    const joined = rosters({}, { ...who, members: { ...who.members, "joan@northwind.example": { permissions: ["AI_ADMIN"] } } });
    const third = await s.up(joined);
    expect(third.changes).toBe(1);
    expect(world.emu.store.invitations.of(ORG).map((i) => i.email)).toContain("joan@northwind.example");
    // Gaining more than they held then is new: Frances made an org admin waits for a decision.
    await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${SEEDED.users.legalHoldAdmin}`, {
      permissions: ["LEGAL_HOLD_ADMIN", "ORG_ADMIN"],
    });
    expect(await failureOf(s.preview(joined, { refresh: true }))).toMatch(
      /frances@northwind\.example \(LEGAL_HOLD_ADMIN, ORG_ADMIN; held LEGAL_HOLD_ADMIN when the roster was first applied/,
    );
  });
});

describe("the drift gate (default: failOnPrivileged)", () => {
  it("a new ORG_ADMIN and DB_ADMIN fail the drift job and the preview once, named; up repairs the rest, then fails; accepting them sticks", async () => {
    const s = world.freshStack();
    const before = everyoneNow();
    const program = rosters({}, before);
    await s.up(program);
    await s.preview(program, { refresh: true, expectNoChanges: true });

    const { dbAdmin } = await makeDrift();
    // Two repairs waiting too: a member's permissions and a grant, changed in the web application.
    await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${SEEDED.users.aiAdmin}`, { permissions: [] });
    const granted = Object.keys(before.users)
      .map(Number)
      .find((id) => id !== SEEDED.users.orgAdmin)!;
    await control(world.emu.url, "DELETE", `/databases/${DB}/users/${granted}`);

    // The drift job of docs/gitops.md fails naming them, who made them what, and how to decide; once, no stack trace.
    const drift = await failureOf(s.preview(program, { refresh: true, expectNoChanges: true }));
    const mallory =
      /mallory@evil\.example \(ORG_ADMIN; changed at \S+ by Frances Allen <frances@northwind\.example> \(user 1005\) \(USER_ADDED\)\)/;
    const dbGate = new RegExp(
      `user ${dbAdmin} \\([^)]*\\) \\(DB_ADMIN; changed at \\S+ by Frances Allen <frances@northwind\\.example> \\(user 1005\\) \\(DATABASE_USER_UPDATED\\)\\)`,
    );
    expect(mallory.test(drift) || dbGate.test(drift), drift).toBe(true);
    expect(drift).toMatch(/nobody decided about: .*Declare them in the roster's (members|users)/);
    const transcript = s.lastTranscript.text;
    expect(transcript).not.toMatch(/\n\s+at \S+ \(/); // no stack frame anywhere
    expect(count(drift, "nobody decided about")).toBe(1);

    // Refresh names both and reports drift.
    const refresh = await s.refresh();
    expect(Object.fromEntries(refresh.steps.map((st) => [st.name, st.op]))).toEqual({ legal: "refresh-changed", nvc: "refresh-changed" });
    expect(logsOf(refresh)).toMatch(/mallory@evil\.example \(ORG_ADMIN\)/);
    expect(logsOf(refresh)).toMatch(new RegExp(`user ${dbAdmin} \\([^)]*\\) \\(DB_ADMIN\\)`));

    // The repair up (continue-on-error, as up.yml runs it): both repairs applied, then it fails naming them.
    const up = await failureOf(s.up(program, { continueOnError: true }));
    expect(up).toMatch(/mallory@evil\.example \(ORG_ADMIN/);
    expect(up).toMatch(new RegExp(`user ${dbAdmin} \\([^)]*\\) \\(DB_ADMIN`));
    expect(up).toMatch(/Everything else this roster declares was applied/);
    expect(s.lastTranscript.text).not.toMatch(/\n\s+at \S+ \(/);
    expect(world.emu.store.members.get(ORG, SEEDED.users.aiAdmin).permissions).toEqual(
      before.members["ken@northwind.example"]!.permissions,
    );
    expect(world.emu.store.databases.findUser(DB, granted)?.permissions).toEqual(before.users[String(granted)]);

    // Accepting them is a change, shown by the preview and stored by the up; every job is clean after.
    const accepted = rosters({ emails: ["Mallory@Evil.example"], userIds: [dbAdmin] }, before);
    const shown = await s.preview(accepted);
    expect(logsOf(shown)).toMatch(/knownExceptions: \+ mallory@evil\.example \(accepted as they are\)/);
    expect(logsOf(shown)).toMatch(new RegExp(`knownExceptions: \\+ ${dbAdmin} \\(accepted as they are\\)`));
    await s.up(accepted);
    expect(outputsOf(s, "legal").knownExceptions).toEqual(["mallory@evil.example"]);
    expect(outputsOf(s, "nvc").knownExceptions).toEqual([dbAdmin]);
    const clean = await s.refresh({ expectNoChanges: true });
    expect(logsOf(clean)).not.toMatch(/mallory|nobody decided/);
    await s.preview(accepted, { refresh: true, expectNoChanges: true });
    expect(world.emu.store.users.findByEmail("mallory@evil.example")).toBeDefined();
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
    expect(logsOf(reported)).toMatch(/mallory@evil\.example \(ORG_ADMIN/);
    const ignoring = rosters({ onUnmanaged: "ignore" });
    await s.up(ignoring);
    const quiet = await s.preview(ignoring, { refresh: true, expectNoChanges: true });
    expect(logsOf(quiet)).not.toMatch(/mallory/);
  });

  it('"failOnAny" stops on someone new without any permission, and records who was there', async () => {
    const s = world.freshStack();
    const program = rosters({ onUnmanaged: "failOnAny" });
    await s.up(program);
    // The pending invitation the maps leave out was there: recorded, not judged.
    expect(outputsOf(s, "legal").foundWhenAdopted).toEqual({ [SEEDED.invitations.pending]: [] });
    await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
      email: "quiet@northwind.example",
      firstName: "Q",
      lastName: "Uiet",
    });
    expect(await failureOf(s.preview(program, { refresh: true }))).toMatch(
      /1 person the program does not declare is there nobody decided about: quiet@northwind\.example \(no permission/,
    );
    // The default passes them: no privileged permission.
    await s.up(rosters());
  });
});
