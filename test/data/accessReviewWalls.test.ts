/**
 * The access review's ethical walls (issue 26): getAccessMatrix takes the program's walls as an
 * argument (a data source cannot read the stack's resources) and lists each with its state:
 * held, breached (a walled person holds database permissions), unenforceable (a walled org admin
 * reaches a database that keeps orgAdminAccess on); databases it cannot read are named.
 */
import { describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { SEEDED } from "../../emulator";
import { failure, useSeededEmulator } from "./seededEmulator";

const s = useSeededEmulator();
const DB = SEEDED.databases.open;
const walls: { name: string; databaseIds: number[]; people: string[]; reason: string }[] = [
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

  it("a bad wall is refused before any request, naming the field and the rule", async () => {
    const bad = (wall: Partial<(typeof walls)[number]>) =>
      failure(data.getAccessMatrix({ organizationId: SEEDED.org, walls: [{ ...walls[0]!, ...wall }] }, s.as("orgAdmin")));
    expect((await bad({ name: "" })).message).toBe(`getAccessMatrix: invalid argument 'walls[0].name': must name the wall, got ""`);
    expect((await bad({ databaseIds: [0] })).message).toMatch(
      /^getAccessMatrix: invalid argument 'walls\[0\]\.databaseIds\[0\]': must be a positive integer database id/,
    );
  });
});
