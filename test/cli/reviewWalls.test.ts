/**
 * `pulumi-reviewadmin review walls` (issue 37): the wall compliance report of a month with two
 * breaches of a matter-team wall: one made in the web application and removed by the wall
 * (onBreach "remove", recorded in its state), one that cannot be fixed (an outsider made org admin
 * of the organization, whose org admins reach the database); an exception in force listed apart.
 * Written as walls.md, walls.csv and walls.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { codeOf } from "../../cli/review/inCode";
import type { ReviewPerson } from "../../cli/review/format";
import { SEEDED } from "../../emulator";
import { declaredBy } from "../../policy/declarations";
import { control } from "../support/emulatorHttp";
import { useCliEmulator } from "./reviewEmulator";
import { runCli } from "./runCli";
import { ADA_EXCEPTION, writeWallStack } from "./wallStack";

const DB = SEEDED.databases.open;
const U = SEEDED.users;
const world = useCliEmulator("wall-report");

/** The wall's stack export in this file's folder (wallStack.ts). */
function stackState(removedAt: string): string {
  return writeWallStack(path.join(world.tmp, "state.json"), removedAt);
}

describe("review walls", () => {
  it("a month with two breaches: one removed by the wall, one unenforceable (an org admin); the exception in force listed apart", async () => {
    const since = world.emu.store.clock.now();
    const advance = async (days: number) =>
      expect((await control(world.emu.url, "POST", "/clock", { advanceDays: days })).status).toBe(200);
    await advance(2);
    // The emulator's clock runs on between the steps: each instant is known to its day.
    const onDay = () => expect.stringMatching(new RegExp(`^${new Date(world.emu.store.clock.now()).toISOString().slice(0, 10)}T`));
    const madeAt = onDay();
    // In the web application, Ada (the organization's first org admin) gives Linus DB_UPLOAD on 2001.
    expect((await control(world.emu.url, "PUT", `/databases/${DB}/users/${U.unaffiliated}`, { permissions: ["DB_UPLOAD"] })).status).toBe(
      200,
    );
    await advance(3);
    // The wall's up removes it through the API (which logs nothing); the wall's state keeps the removal.
    const removedAt = new Date(world.emu.store.clock.now()).toISOString();
    world.emu.store.databases.removeUser(DB, U.unaffiliated);
    await advance(5);
    const orgAdminAt = onDay();
    expect(
      (
        await control(world.emu.url, "PATCH", `/organizations/${SEEDED.org}/members/${U.aiAdmin}`, {
          permissions: ["AI_ADMIN", "ORG_ADMIN"],
        })
      ).status,
    ).toBe(200);
    await advance(20);
    const until = world.emu.store.clock.now();

    const out = path.join(world.tmp, "report");
    const args = ["review", "walls", "--base-url", world.emu.url, "--api-key-file", world.keyFile, "--stack-state", stackState(removedAt)];
    const r = await runCli([...args, "--since", String(since), "--until", String(until), "--out", out]);
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(r.out).toMatch(/^Wall report for .*: 1 wall, 1 breach \(1 fixed\), 1 unenforceable, 1 exception in force; written to /);

    const report = JSON.parse(fs.readFileSync(path.join(out, "walls.json"), "utf8"));
    expect(report.walls).toEqual([
      {
        name: "nvc-team",
        form: "team",
        reason: "NvC matter team",
        databaseIds: [DB],
        breaches: [
          {
            databaseId: DB,
            userId: U.unaffiliated,
            email: "linus@example.com",
            permissions: ["DB_UPLOAD"],
            madeAt,
            madeBy: `Ada Lovelace <ada@northwind.example> (user ${U.orgAdmin})`,
            fixedAt: removedAt,
            fixedBy: 'the wall (onBreach "remove")',
            status: "fixed",
          },
        ],
        unenforceable: [
          {
            databaseId: DB,
            organizationId: SEEDED.org,
            userId: U.aiAdmin,
            email: "ken@northwind.example",
            why: `an org admin of organization ${SEEDED.org}, and database ${DB} keeps orgAdminAccess on: org admins reach it, which the API cannot turn off (turn orgAdminAccess off in the web application, or take ORG_ADMIN from ken@northwind.example)`,
            madeAt: orgAdminAt,
            madeBy: `Ada Lovelace <ada@northwind.example> (user ${U.orgAdmin})`,
          },
        ],
        exceptionsInForce: [ADA_EXCEPTION],
        unreadableDatabaseIds: [],
      },
    ]);
    const md = fs.readFileSync(path.join(out, "walls.md"), "utf8");
    expect(md).toContain("## nvc-team: matter team on database 2001 (NvC matter team)");
    expect(md).toContain(
      `| linus@example.com (user 1011) | 2001 | DB_UPLOAD | ${report.walls[0].breaches[0].madeAt} | Ada Lovelace <ada@northwind.example> (user 1001) | ${removedAt} | the wall (onBreach "remove") | fixed |`,
    );
    expect(md).toContain(`- ken@northwind.example (user 1010) on database 2001: an org admin of organization 102`);
    expect(md).toContain(
      "- ada@northwind.example (approved by grace@northwind.example: administers the platform; client consent NVC-1; until 2099-01-01)",
    );
    const csv = fs.readFileSync(path.join(out, "walls.csv"), "utf8").trim().split("\n");
    expect(csv.map((l) => l.split(",").slice(0, 2).join(","))).toEqual([
      "wall,kind",
      "nvc-team,breach",
      "nvc-team,unenforceable",
      "nvc-team,exception",
    ]);

    // Run again on the same world: the same bytes.
    const again = path.join(world.tmp, "again");
    await runCli([...args, "--since", String(since), "--until", String(until), "--out", again]);
    expect(fs.readFileSync(path.join(again, "walls.md"), "utf8")).toBe(md);
  });

  it("refuses a call without the stack, or with both --until and --as-of, naming the options", async () => {
    const noStack = await runCli(["review", "walls", "--base-url", world.emu.url, "--api-key-file", world.keyFile]);
    expect(noStack.code).toBe(2);
    expect(noStack.err).toContain("give --stack NAME or --stack-state FILE");
    const both = await runCli(["review", "walls", "--until", "2026-01-01T00:00:00Z", "--as-of", "2026-01-01T00:00:00Z"]);
    expect(both.err).toContain("give --until or --as-of, not both");
    const help = await runCli(["review", "walls", "--help"]);
    expect(help.out).toContain("Writes walls.md, walls.csv and walls.json into --out.");
  });
});

describe("the review packet's wall flags (inCode.ts)", () => {
  it("a matter-team wall flags an outsider's grant as a wall-breach; an exception in force on the review's day admits them, said apart", () => {
    const type = "pulumi-nodejs:dynamic/reviewadmin:EthicalWall";
    const wall = (exceptions?: object[]) =>
      declaredBy([
        {
          type,
          urn: `urn:pulumi:dev::access::${type}::nvc-team`,
          name: "nvc-team",
          props: {
            databaseIds: [DB],
            team: ["alan@northwind.example"],
            reason: "NvC matter team",
            walledUsers: {},
            ...(exceptions ? { exceptions } : {}),
          },
        },
      ]);
    const margaret: ReviewPerson = {
      key: "margaret@northwind.example",
      userId: U.multiOrgMember,
      name: "Margaret Hamilton",
      lines: [{ scope: `database ${DB}`, status: "granted", permissions: ["DB_UPLOAD"] }],
      lastActivity: null,
      flags: [],
    };
    const asOf = Date.parse("2026-11-15T00:00:00Z");
    const x = { person: "margaret@northwind.example", approver: "grace@northwind.example", reason: "production", endsOn: "2026-12-01" };
    // A wall stored without exceptions (as every wall before issue 37).
    expect(codeOf(wall(), SEEDED.org, asOf, 14)(margaret).flags).toEqual(expect.arrayContaining(["walled", "wall-breach"]));
    const admitted = codeOf(wall([x]), SEEDED.org, asOf, 14)(margaret);
    expect(admitted.flags).toContain("walled");
    expect(admitted.flags).not.toContain("wall-breach");
    expect(admitted.inCode.walls).toEqual([
      'EthicalWall "nvc-team" (NvC matter team); exception in force: margaret@northwind.example (approved by grace@northwind.example: production; until 2026-12-01)',
    ]);
    // Past its end on the review's day, it admits no more.
    expect(codeOf(wall([x]), SEEDED.org, Date.parse("2026-12-01T00:00:00Z"), 14)(margaret).flags).toContain("wall-breach");
  });
});
