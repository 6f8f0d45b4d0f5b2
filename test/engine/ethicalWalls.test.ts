/**
 * Ethical walls under the real engine (issue 26, provider/resources/ethicalWall.ts and the
 * policy pack's ethical-walls rule): a program walling ken@northwind.example and
 * *@contoso-counsel.example off database 2001 fails its preview under the pack when a roster
 * grants Ken access; grants made in the web application are found by refresh (drift) and removed
 * by up with onBreach "remove", the last DB_ADMIN too while the organization's org admins still
 * administer the database (anti-lockout keeps it only where no one else can); a walled org
 * admin of a database that keeps orgAdminAccess on is reported as unenforceable. Matter-team walls
 * (issue 37): a program granting outside the team fails its preview under the pack; an outsider
 * added in the web app is found at refresh with who added them and removed by up; an approved
 * exception admits its person until its end by the service's clock, then they are a breach; the
 * seeded world's matter team (SEEDED.matterTeam) finds the seeded grant outside it at refresh.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as automation from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import type { DatabasePermission } from "../../contract/types";
import { SEEDED } from "../../emulator";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import type { OnBreach } from "../../provider";
import { control } from "../support/emulatorHttp";
import { skipWithoutEngine } from "../support/engine";
import { useProgramWorld } from "../support/programWorld";
import { repoRoot } from "../support/providerWorld";

skipWithoutEngine("test/engine/ethicalWalls.test.ts");

const DB = SEEDED.databases.open;
const KEN = SEEDED.users.aiAdmin;
const world = useProgramWorld("ethical-walls");
const withPack = { policyPacks: [path.join(repoRoot, "policy")] };
const logsOf = (r: { logs: { line: string }[] }) => r.logs.map((l) => l.line).join("\n");
const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (e: unknown) => e as RunError & { result: { policy: automation.PolicyEvent[] } },
  );

// The plugin face's executable, found on PATH as Pulumi finds an installed plugin (docs/plugin.md).
process.env.PATH = `${path.join(repoRoot, "plugin")}${path.delimiter}${process.env.PATH}`;
/** The wall's class on either face. */
type Face = Pick<typeof reviewadmin.plugin, "EthicalWall">;
const FACES: [string, Face][] = [
  ["dynamic face", reviewadmin as Face],
  ["plugin face", reviewadmin.plugin],
];

const wallOf = (onBreach: OnBreach, ra: Face) => () => {
  new ra.EthicalWall("nvc-wall", {
    databaseIds: [DB],
    people: ["Ken@Northwind.example", "*@contoso-counsel.example"],
    reason: "Ken advised Contoso on this matter",
    onBreach,
  });
};
const wall = (onBreach: OnBreach = "remove") => wallOf(onBreach, reviewadmin as Face);

/** In the web application: Ken gets DB_UPLOAD on 2001; counsel@contoso-counsel.example joins and becomes 2001's only DB_ADMIN. */
async function breachInWebApp(): Promise<number> {
  // A person acts in a later second than the program's own writes (refresh looks from the second after the apply).
  world.emu.store.clock.advance(2_000);
  expect((await control(world.emu.url, "PUT", `/databases/${DB}/users/${KEN}`, { permissions: ["DB_UPLOAD"] })).status).toBeLessThan(300);
  const added = await control(world.emu.url, "POST", `/organizations/${SEEDED.org}/members`, { email: "counsel@contoso-counsel.example" });
  expect(added.status).toBe(201);
  const counsel = world.emu.store.users.findByEmail("counsel@contoso-counsel.example")!.id;
  expect((await control(world.emu.url, "PUT", `/databases/${DB}/users/${counsel}`, { permissions: ["DB_ADMIN"] })).status).toBeLessThan(
    300,
  );
  return counsel;
}

describe("EthicalWall in the live platform", () => {
  it.each(FACES)(
    "refresh shows web-app grants across the wall as drift; up removes them (onBreach remove), the last DB_ADMIN too: org admins still administer 2001 (%s)",
    async (_face, ra) => {
      const s = world.freshStack();
      const wall = (onBreach: OnBreach = "remove") => wallOf(onBreach, ra);
      await s.up(wall());
      expect(s.find("nvc-wall")!.outputs.breaches).toEqual([]);
      const counsel = await breachInWebApp();

      const refresh = await s.refresh();
      expect(refresh.steps.find((st) => st.name === "nvc-wall")!.op).toBe("refresh-changed");
      // Who made each breach, from the activity log: the web app's acting user (Ada, the organization's first org admin).
      const madeBy = expect.stringMatching(
        /^changed at \S+ by Ada Lovelace <ada@northwind\.example> \(user 1001\) \(DATABASE_USER_UPDATED\)$/,
      );
      expect(s.find("nvc-wall")!.outputs.breaches).toEqual([
        { databaseId: DB, userId: KEN, email: "ken@northwind.example", permissions: ["DB_UPLOAD"], madeBy },
        {
          databaseId: DB,
          userId: counsel,
          email: "counsel@contoso-counsel.example",
          permissions: ["DB_ADMIN"],
          madeBy,
        },
      ]);
      expect(logsOf(refresh)).toMatch(
        /breach: ken@northwind\.example \(user 1010\) holds DB_UPLOAD on database 2001 \(changed at \S+ by Ada Lovelace <ada@northwind\.example> \(user 1001\) \(DATABASE_USER_UPDATED\)\), which the wall closes to them \(Ken advised Contoso on this matter\)/,
      );
      // The GitOps drift job fails on it.
      expect(await failureOf(s.preview(wall(), { refresh: true, expectNoChanges: true }))).toBeInstanceOf(RunError);

      const up = await s.up(wall());
      expect(logsOf(up)).toMatch(/removed ken@northwind\.example \(user 1010\) holds DB_UPLOAD on database 2001/);
      // 2001 keeps orgAdminAccess on and 102 has an org admin (Ada): its last DB_ADMIN may go (anti-lockout, access/plan.ts).
      expect(logsOf(up)).toMatch(/removed counsel@contoso-counsel\.example \(user \d+\) holds DB_ADMIN on database 2001/);
      expect(world.emu.store.databases.findUser(DB, KEN)).toBeUndefined();
      expect(world.emu.store.databases.findUser(DB, counsel)).toBeUndefined();
      // Nothing left across the wall: no change a further up could make.
      await s.preview(wall(), { expectNoChanges: true });
    },
  );

  it('onBreach "report" (the default) reports the breach and removes nothing', async () => {
    const s = world.freshStack();
    await s.up(wall("report"));
    await breachInWebApp();
    const up = await s.up(wall("report"));
    expect(logsOf(up)).toMatch(/onBreach is "report": remove the grant in the web application, or set onBreach: "remove"/);
    expect(world.emu.store.databases.findUser(DB, KEN)?.permissions).toEqual(["DB_UPLOAD"]);
  });

  it("a walled org admin of a database with orgAdminAccess on is unenforceable, said at preview and refresh", async () => {
    const s = world.freshStack();
    // Ada is org admin of 102, which owns 2001 (orgAdminAccess on) and 2002 (off).
    const program = () => {
      new reviewadmin.EthicalWall("ada-wall", {
        databaseIds: [DB, SEEDED.databases.restricted],
        people: ["ada@northwind.example"],
        reason: "lateral hire from the other side",
      });
    };
    const preview = await s.preview(program);
    const plainly =
      /breach the API cannot fix: ada@northwind\.example \(user 1001\) is an org admin of organization 102, and database 2001 keeps orgAdminAccess on, so org admins reach it whatever the wall says\. Turn orgAdminAccess off for database 2001 in the web application/;
    expect(logsOf(preview)).toMatch(plainly);
    await s.up(program);
    expect(s.find("ada-wall")!.outputs.unenforceable).toEqual([
      { databaseId: DB, organizationId: SEEDED.org, userId: SEEDED.users.orgAdmin, email: "ada@northwind.example" },
    ]);
    // 2002 keeps org admins out (orgAdminAccess off): the wall says it cannot see who holds permissions there.
    expect(s.find("ada-wall")!.outputs.unreadableDatabaseIds).toEqual([SEEDED.databases.restricted]);
    // A preview of the wall in state says it once (its diff; the check speaks for new walls only).
    expect(logsOf(await s.preview(program)).match(new RegExp(plainly.source, "g"))).toHaveLength(1);
    const refresh = logsOf(await s.refresh());
    expect(refresh).toMatch(plainly);
    expect(refresh).toMatch(/cannot see who holds permissions on database 2002: the API key may not list its users/);
  });
});

describe("the policy pack's ethical-walls rule", () => {
  it("a roster granting Ken access to 2001 fails the preview, naming the wall, the person, the database and the roster", async () => {
    const s = world.freshStack();
    const program = (users: Record<string, DatabasePermission[]>) => () => {
      wall()();
      new reviewadmin.EthicalWall("counsel-wall", {
        databaseIds: [DB],
        people: ["ken@northwind.example"],
        reason: "second wall on the same matter",
      });
      new reviewadmin.DatabaseUsers("nvc-users", { databaseId: DB, mode: "additive", users, onUnmanaged: "ignore" });
    };
    const failed = await failureOf(s.preview(program({ [String(KEN)]: ["DB_UPLOAD"] }), withPack));
    expect(failed).toBeInstanceOf(RunError);
    const messages = failed!.result.policy.filter((p) => p.policyName === "ethical-walls").map((p) => p.message.trim().split("\n").at(-1));
    expect(messages.sort()).toEqual(
      [
        'EthicalWall "nvc-wall" walls ken@northwind.example off database 2001 (Ken advised Contoso on this matter), but DatabaseUsers "nvc-users" grants user 1010 (ken@northwind.example) DB_UPLOAD on it. ' +
          'Fix: take user 1010 (ken@northwind.example) out of DatabaseUsers "nvc-users", or change EthicalWall "nvc-wall" if the wall is wrong.',
        'EthicalWall "counsel-wall" walls ken@northwind.example off database 2001 (second wall on the same matter), but DatabaseUsers "nvc-users" grants user 1010 (ken@northwind.example) DB_UPLOAD on it. ' +
          'Fix: take user 1010 (ken@northwind.example) out of DatabaseUsers "nvc-users", or change EthicalWall "counsel-wall" if the wall is wrong.',
      ].sort(),
    );
    // Without Ken the same program passes the pack.
    const ok = await s.preview(program({ "1007": ["DB_UPLOAD"] }), withPack);
    expect(ok.policy.filter((p) => p.policyName === "ethical-walls")).toEqual([]);
  });
});

describe("matter-team walls (issue 37)", () => {
  const MARGARET = SEEDED.users.multiOrgMember; // DB_UPLOAD on 2001 from the seed
  const LINUS = SEEDED.users.unaffiliated;
  /** The NvC matter team; Margaret admitted by an exception ending on `endsOn` (none: no exception). */
  const teamWall =
    (endsOn?: string, ra: Face = reviewadmin as Face) =>
    () => {
      new ra.EthicalWall("nvc-team", {
        databaseIds: [DB],
        team: [...SEEDED.matterTeam.team], // Alan and Barbara
        reason: "NvC matter team",
        onBreach: "remove",
        ...(endsOn
          ? { exceptions: [{ person: "margaret@northwind.example", approver: "grace@northwind.example", reason: "production", endsOn }] }
          : {}),
      });
    };

  it("a program declaring the seeded world's matter team finds the seeded grant outside it at refresh, and the org admin it cannot keep out", async () => {
    const s = world.freshStack();
    const { databaseId, team, reason } = SEEDED.matterTeam;
    const program = () => {
      new reviewadmin.EthicalWall("seeded-team", { databaseIds: [databaseId], team: [...team], reason });
    };
    await s.up(program);
    const refresh = await s.refresh();
    expect(logsOf(refresh)).toContain(
      `breach: margaret@northwind.example (user ${MARGARET}) holds DB_UPLOAD on database ${databaseId}, which the wall closes to all but the matter team (${reason})`,
    );
    const outputs = s.find("seeded-team")!.outputs;
    expect(outputs.breaches).toEqual([{ databaseId, userId: MARGARET, email: "margaret@northwind.example", permissions: ["DB_UPLOAD"] }]);
    expect(outputs.unenforceable).toEqual([
      { databaseId, organizationId: SEEDED.org, userId: SEEDED.users.orgAdmin, email: "ada@northwind.example" },
    ]);
    // onBreach "report" (the default): nothing was removed.
    expect(world.emu.store.databases.findUser(databaseId, MARGARET)?.permissions).toEqual(["DB_UPLOAD"]);
  });

  it("a program granting outside the team fails the preview, naming the wall, the person and the database", async () => {
    const s = world.freshStack();
    const program = () => {
      teamWall()();
      new reviewadmin.DatabaseUserPermissions("ken", { databaseId: DB, userId: KEN, permissions: ["DB_UPLOAD"] });
    };
    const failed = await failureOf(s.preview(program, withPack));
    expect(failed).toBeInstanceOf(RunError);
    const messages = failed!.result.policy.filter((p) => p.policyName === "ethical-walls").map((p) => p.message);
    expect(messages.join("\n")).toContain(
      'EthicalWall "nvc-team" admits only its matter team to database 2001 (NvC matter team), but DatabaseUserPermissions "ken" grants user 1010 (ken@northwind.example), who is not on the team, DB_UPLOAD on it.',
    );
  });

  it.each(FACES)(
    "an outsider added in the web app is found at refresh with who added them and removed by up; an exception admits until its end (%s)",
    async (_face, ra) => {
      const s = world.freshStack();
      const now = (await control(world.emu.url, "GET", "/clock")).body.data.nowMs as number;
      const endsOn = new Date(now + 2 * 86_400_000).toISOString().slice(0, 10);
      await s.up(teamWall(endsOn, ra));
      expect(s.find("nvc-team")!.outputs.breaches).toEqual([]);
      expect(world.emu.store.databases.findUser(DB, MARGARET)?.permissions).toEqual(["DB_UPLOAD"]); // admitted

      expect((await control(world.emu.url, "PUT", `/databases/${DB}/users/${LINUS}`, { permissions: ["DB_UPLOAD"] })).status).toBeLessThan(
        300,
      );
      const refresh = await s.refresh();
      expect(logsOf(refresh)).toMatch(
        /breach: linus@example\.com \(user 1011\) holds DB_UPLOAD on database 2001 \(changed at \S+ by Ada Lovelace <ada@northwind\.example> \(user 1001\)/,
      );
      expect(logsOf(refresh)).toMatch(
        /exception in force: margaret@northwind\.example \(approved by grace@northwind\.example: production; until /,
      );
      await s.up(teamWall(endsOn, ra));
      expect(world.emu.store.databases.findUser(DB, LINUS)).toBeUndefined();
      expect(world.emu.store.databases.findUser(DB, MARGARET)?.permissions).toEqual(["DB_UPLOAD"]);

      // Two days on by the service's clock: the exception has ended, and Margaret is a breach again.
      expect((await control(world.emu.url, "POST", "/clock", { advanceDays: 2 })).status).toBe(200);
      const later = await s.refresh();
      expect(logsOf(later)).toMatch(/breach: margaret@northwind\.example .* their exception has ended/);
      await s.up(teamWall(endsOn, ra));
      expect(world.emu.store.databases.findUser(DB, MARGARET)).toBeUndefined();
      expect((s.find("nvc-team")!.outputs.removals as { email: string }[]).map((r) => r.email)).toEqual([
        "linus@example.com",
        "margaret@northwind.example",
      ]);
    },
  );
});

describe("walls from the firm's wall system (issue 37)", () => {
  const EXAMPLE = path.join(repoRoot, "examples/walls-from-file/walls.csv");

  // The walls-from-file example's program, inline: run as a file, its `pulumi-reviewadmin` would
  // resolve through node_modules to the installed package, not this tree's.
  it("a program declares the example CSV's walls; the typo'd matter and the misspelt person are warned with their lines", async () => {
    const s = world.freshStack();
    const program = async () => {
      const file = await reviewadmin.getWallsFromFile({ path: EXAMPLE });
      for (const w of file.walls) new reviewadmin.EthicalWall(w.name, { ...w.args, onBreach: "report" });
      for (const p of file.problems) pulumi.log.warn(`walls.csv line ${p.line}: ${p.message}`);
      return { problemLines: file.problems.map((p) => p.line) };
    };
    const up = await s.up(program);
    expect(s.find("wall-nw-1001")!.outputs).toMatchObject({
      databaseIds: [DB],
      team: ["alan@northwind.example", "barbara@northwind.example"],
      alsoAllowed: ["frances@northwind.example"],
    });
    expect(s.find("wall-nw-1002")!.outputs.people).toEqual(["ken@northwind.example", "kenn@northwind.example"]);
    expect(s.find("wall-nw-1003")).toBeUndefined();
    expect(up.outputs.problemLines).toEqual([6, 7]);
    expect(logsOf(up)).toContain(
      "walls.csv line 7: unknown matter NW-1003: no database the API key can see is named 'Northwind v Contoso'",
    );
  });
});
