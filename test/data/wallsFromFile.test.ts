/**
 * Walls from the firm's wall system (issue 37): the wall file's layout read into EthicalWall
 * arguments (provider/wallFile.ts, on plain values), and getWallsFromFile judging the repository's
 * example file (examples/walls-from-file/walls.csv) against the seeded world: its typo'd matter
 * and misspelt person are reported with their lines, not dropped.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { parseWallFile, readWallFile, WallFileError } from "../../provider/wallFile";
import { failure, useSeededEmulator } from "./seededEmulator";

const s = useSeededEmulator();
const EXAMPLE = path.resolve(__dirname, "../../examples/walls-from-file/walls.csv");

describe("the wall file", () => {
  const world = { databases: [{ id: 2001, name: "Northwind v. Contoso" }], people: new Set(["alan@northwind.example"]) };

  it("reads other systems' headers and values (an Intapp-style export), and names every row and column it does not read", () => {
    const text = [
      "Matter Number,Matter Description,Workspace ID,Policy Type,Email Address,Side,Office",
      "M-7,NvC,2001,Inclusionary,Alan@Northwind.example,Insider,London",
      "M-7,NvC,2001,Inclusionary,not-an-email,Insider,London",
      "M-7,NvC,2001,Sideways,alan@northwind.example,Insider,London",
    ].join("\n");
    const read = readWallFile(text, world);
    expect(read.walls).toEqual([
      {
        name: "wall-m-7",
        matter: "M-7",
        lines: [2],
        args: { databaseIds: [2001], team: ["alan@northwind.example"], reason: "matter M-7 (NvC), from the firm's wall system" },
      },
    ]);
    expect(read.problems).toEqual([
      { line: 1, message: "column 'Office' is not read (not a column of the wall file)" },
      { line: 3, message: "row not read: person_email 'not-an-email' must be an email address" },
      { line: 4, message: "row not read: wall_type 'Sideways' must be inclusive or exclusive" },
    ]);
  });

  it("refuses a file whose header lacks a required column, naming it", () => {
    expect(() => parseWallFile("matter,person_email,role\nM-1,a@b.example,team\n")).toThrow(
      new WallFileError("line 1: the header lacks wall_type, database_id or database (docs/walls.md lists the columns)"),
    );
  });
});

describe("getWallsFromFile", () => {
  it("reads the example file: a matter-team wall and a wall of people; the typo'd matter and the misspelt person reported with their lines", async () => {
    const file = await data.getWallsFromFile({ path: EXAMPLE }, s.as("orgAdmin"));
    expect(file.walls).toEqual([
      {
        name: "wall-nw-1001",
        matter: "NW-1001",
        lines: [2, 3, 4],
        args: {
          databaseIds: [2001],
          team: ["alan@northwind.example", "barbara@northwind.example"],
          alsoAllowed: ["frances@northwind.example"],
          reason: "NvC matter team",
        },
      },
      {
        name: "wall-nw-1002",
        matter: "NW-1002",
        lines: [5, 6],
        args: {
          databaseIds: [2002],
          people: ["ken@northwind.example", "kenn@northwind.example"],
          reason: "Ken is a witness in the investigation",
        },
      },
    ]);
    expect(file.problems).toEqual([
      {
        line: 6,
        message:
          "unknown person kenn@northwind.example: no member or database user the API key can see; kept in the wall, check the spelling",
      },
      { line: 7, message: "unknown matter NW-1003: no database the API key can see is named 'Northwind v Contoso'" },
    ]);
  });

  it("a file it cannot read fails, naming the data source, the file and the rule", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "walls-"));
    const bad = path.join(dir, "walls.csv");
    fs.writeFileSync(bad, "matter,person_email\n");
    expect((await failure(data.getWallsFromFile({ path: bad }, s.as("orgAdmin")))).message).toBe(
      `getWallsFromFile: reading the wall file ${bad}: line 1: the header lacks wall_type, role, database_id or database (docs/walls.md lists the columns)`,
    );
  });
});
