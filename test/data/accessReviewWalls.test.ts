/**
 * The access review's ethical walls (issue 26): getAccessMatrix takes the program's walls as an
 * argument (a data source cannot read the stack's resources) and lists each with its state:
 * held, breached (a walled person holds database permissions), unenforceable (a walled org admin
 * reaches a database that keeps orgAdminAccess on); databases it cannot read are named. The
 * matter-team form (issue 37), on the seeded matter team: everyone outside the team and
 * alsoAllowed with access is flagged, by the walls' one rule (contract/grants.ts wallCloses).
 */
import { describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { SEEDED } from "../../emulator";
import { failure, useSeededEmulator } from "./seededEmulator";

const s = useSeededEmulator();
const DB = SEEDED.databases.open;
const walls: { name: string; databaseIds: number[]; people?: string[]; team?: string[]; reason: string }[] = [
  { name: "nvc-wall", databaseIds: [DB], people: ["Ken@Northwind.example", "*@contoso.example"], reason: "Ken advised Contoso" },
  { name: "ada-wall", databaseIds: [DB, SEEDED.databases.restricted], people: ["ada@northwind.example"], reason: "lateral hire" },
];

describe("access review: ethical walls", () => {
  it("each wall with its state: held, then breached by a web-app grant; a walled org admin is unenforceable", async () => {
    const held = await data.getAccessMatrix({ organizationId: SEEDED.org, walls }, s.as("orgAdmin"));
    expect(held.walls).toEqual([
      {
        name: "nvc-wall",
        reason: "Ken advised Contoso",
        databaseIds: [DB],
        people: ["ken@northwind.example", "*@contoso.example"],
        state: "held",
        breaches: [],
        unenforceable: [],
        notChecked: [],
      },
      {
        name: "ada-wall",
        reason: "lateral hire",
        databaseIds: [DB, SEEDED.databases.restricted],
        people: ["ada@northwind.example"],
        state: "unenforceable",
        breaches: [],
        unenforceable: [{ databaseId: DB, userId: SEEDED.users.orgAdmin, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }],
        notChecked: [SEEDED.databases.restricted],
      },
    ]);

    s.emu.store.databases.setUser(DB, SEEDED.users.aiAdmin, ["DB_UPLOAD"]);
    try {
      const breached = await data.getAccessMatrix({ organizationId: SEEDED.org, walls }, s.as("orgAdmin"));
      expect(breached.walls![0]).toMatchObject({
        state: "breached",
        breaches: [{ databaseId: DB, userId: SEEDED.users.aiAdmin, email: "ken@northwind.example", permissions: ["DB_UPLOAD"] }],
      });
      const md = data.toMarkdown(breached);
      expect(md).toContain("## Ethical walls");
      expect(md).toContain(
        "| nvc-wall | Ken advised Contoso | 2001 | ken@northwind.example, *@contoso.example | breached | breach: ken@northwind.example (user 1010): DB_UPLOAD on database 2001 |",
      );
      expect(md).toContain(
        "| ada-wall | lateral hire | 2001, 2002 | ada@northwind.example | unenforceable | unenforceable (orgAdminAccess on): ada@northwind.example (user 1001): ORG_ADMIN on database 2001, database 2002 not checked",
      );
    } finally {
      s.emu.store.databases.removeUser(DB, SEEDED.users.aiAdmin);
    }
    // Without walls the matrix and its report are as before.
    const plain = await data.getAccessMatrix({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect("walls" in plain).toBe(false);
    expect(data.toMarkdown(plain)).not.toContain("Ethical walls");
  });

  it("the matter-team form on the seeded matter team: everyone outside the team with access is flagged, alsoAllowed admitted", async () => {
    const { databaseId, team, reason } = SEEDED.matterTeam;
    const teamWall = { name: "nvc-team", databaseIds: [databaseId], team: [...team], reason };
    const m = await data.getAccessMatrix({ organizationId: SEEDED.org, walls: [teamWall] }, s.as("orgAdmin"));
    // Margaret's seeded DB_UPLOAD is outside the team; Ada, org admin of 102, reaches 2001 through orgAdminAccess.
    expect(m.walls).toEqual([
      {
        name: "nvc-team",
        reason,
        databaseIds: [databaseId],
        team: [...team],
        state: "unenforceable",
        breaches: [{ databaseId, userId: SEEDED.users.multiOrgMember, email: "margaret@northwind.example", permissions: ["DB_UPLOAD"] }],
        unenforceable: [{ databaseId, userId: SEEDED.users.orgAdmin, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }],
        notChecked: [],
      },
    ]);
    expect(data.toMarkdown(m)).toContain(
      "| nvc-team | Northwind v. Contoso matter team | 2001 | team: alan@northwind.example, barbara@northwind.example | unenforceable | breach: margaret@northwind.example (user 1007): DB_UPLOAD on database 2001, unenforceable (orgAdminAccess on): ada@northwind.example (user 1001): ORG_ADMIN on database 2001 |",
    );

    // alsoAllowed admits Margaret, a pattern admits the firm; a team member holding access is no breach.
    s.emu.store.databases.setUser(databaseId, SEEDED.users.member, ["DB_UPLOAD"]);
    try {
      const admitted = await data.getAccessMatrix(
        {
          organizationId: SEEDED.org,
          walls: [
            { ...teamWall, alsoAllowed: ["Margaret@Northwind.example", "ada@northwind.example"] },
            { ...teamWall, name: "firm", team: ["*@northwind.example"] },
          ],
        },
        s.as("orgAdmin"),
      );
      expect(admitted.walls!.map((w) => [w.name, w.state, w.breaches.length, w.unenforceable.length])).toEqual([
        ["nvc-team", "held", 0, 0],
        ["firm", "held", 0, 0],
      ]);
      expect(admitted.walls![0]).toMatchObject({ team: [...team], alsoAllowed: ["margaret@northwind.example", "ada@northwind.example"] });
    } finally {
      s.emu.store.databases.removeUser(databaseId, SEEDED.users.member);
    }
  });

  it("a bad wall is refused before any request, naming the field and the rule", async () => {
    const bad = (wall: Partial<(typeof walls)[number]>) =>
      failure(data.getAccessMatrix({ organizationId: SEEDED.org, walls: [{ ...walls[0]!, ...wall }] }, s.as("orgAdmin")));
    expect((await bad({ name: "" })).message).toBe(`getAccessMatrix: invalid argument 'walls[0].name': must name the wall, got ""`);
    expect((await bad({ databaseIds: [0] })).message).toMatch(
      /^getAccessMatrix: invalid argument 'walls\[0\]\.databaseIds\[0\]': must be a positive integer database id/,
    );
    // The walls' one form rule (contract/grants.ts), as the EthicalWall says it.
    const form = "give exactly one of people (who is walled off) or team (the matter team: everyone else is walled off)";
    expect((await bad({ team: ["alan@northwind.example"] })).message).toContain(`'walls[0].team': ${form}, not both`);
    expect((await bad({ people: undefined })).message).toContain(`'walls[0].people': ${form}`);
    expect((await bad({ alsoAllowed: ["alan@northwind.example"] } as object)).message).toContain(
      "'walls[0].alsoAllowed': is for a matter-team wall (team) only",
    );
  });
});
