/**
 * `pulumi-reviewadmin export --walls FILE` (issue 37): the repository's example wall file
 * (examples/walls-from-file/walls.csv) written into the exported index.ts as EthicalWall
 * resources, its typo'd matter and misspelt person reported with their lines in index.ts and in
 * the summary (text and --json); a file that cannot be read is refused, naming it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliEmulator } from "./reviewEmulator";
import { runCli } from "./runCli";

const EXAMPLE = path.resolve(__dirname, "../../examples/walls-from-file/walls.csv");
const world = useCliEmulator("export-walls");

const exportWith = (out: string, args: string[]) =>
  runCli([
    "export",
    "--base-url",
    world.emu.url,
    "--api-key-file",
    world.keyFile,
    "--org",
    "102",
    "--out",
    path.join(world.tmp, out),
    "-q",
    ...args,
  ]);

describe("export --walls", () => {
  it("declares one EthicalWall per matter of the file in index.ts; the typo'd matter and the unknown person are reported with their lines", async () => {
    const r = await exportWith("access", ["--walls", EXAMPLE]);
    expect(r, r.err).toMatchObject({ code: 0 });
    const index = fs.readFileSync(path.join(world.tmp, "access", "index.ts"), "utf8");
    expect(index).toContain(
      'new reviewadmin.EthicalWall("wall-nw-1001", {\n  "databaseIds": [\n    2001\n  ],\n  "team": [\n    "alan@northwind.example",\n    "barbara@northwind.example"\n  ],\n  "alsoAllowed": [\n    "frances@northwind.example"\n  ],\n  "reason": "NvC matter team",\n  "onBreach": "report"\n});',
    );
    expect(index).toContain('new reviewadmin.EthicalWall("wall-nw-1002", {');
    expect(index).not.toContain("wall-nw-1003");
    expect(index).toContain("//   line 7: unknown matter NW-1003: no database the API key can see is named 'Northwind v Contoso'");
    expect(index).not.toContain('EthicalWall("wall-1"'); // the commented template gives way to the file's walls
    expect(r.out).toContain(`Walls from ${EXAMPLE}: 2 declared in index.ts (NW-1001, NW-1002); 2 problems:`);
    expect(r.out).toContain(
      "  line 6: unknown person kenn@northwind.example: no member or database user the API key can see; kept in the wall, check the spelling",
    );

    const json = await exportWith("access-json", ["--walls", EXAMPLE, "--json"]);
    expect(JSON.parse(json.out).walls).toEqual({
      file: EXAMPLE,
      declared: ["wall-nw-1001", "wall-nw-1002"],
      problems: [
        { line: 6, message: expect.stringMatching(/^unknown person kenn@northwind\.example/) },
        { line: 7, message: expect.stringMatching(/^unknown matter NW-1003/) },
      ],
    });
  });

  it("refuses a wall file it cannot read, or one with yaml, naming the option and the rule", async () => {
    const bad = path.join(world.tmp, "bad.csv");
    fs.writeFileSync(bad, "matter,person_email\n");
    const r = await exportWith("bad", ["--walls", bad]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(
      `--walls ${bad}: line 1: the header lacks wall_type, role, database_id or database (docs/walls.md lists the columns)`,
    );
    expect(r.err).not.toMatch(/\n\s+at /);
    const yaml = await exportWith("yaml", ["--walls", EXAMPLE, "--language", "yaml"]);
    expect(yaml.err).toContain("--walls writes EthicalWall resources into index.ts: leave out --language yaml");
  });
});
