/**
 * `export --walls FILE`: the firm's ethical walls from its wall system's CSV (provider/wallFile.ts,
 * the layout in docs/walls.md), judged against what the export read, and written into index.ts
 * as EthicalWall resources. What the file holds that makes no wall, or names someone the service
 * does not know, is written beside them as comments and said in the summary, each with its line.
 */
import * as fs from "node:fs";
import { readWallFile, WallFileError, type FileWall, type WallFileProblem, type WallWorld } from "../../provider/wallFile";
import { plural, UsageError } from "../command";
import type { ExportedAccess } from "./read";

/** The walls of a wall file as the export writes them. */
export interface ExportedWalls {
  /** The file as given on the command line. */
  file: string;
  walls: FileWall[];
  problems: WallFileProblem[];
}

/** The databases and people the export read: members by email, database users by the email in their `who`. */
function worldOf(access: ExportedAccess): WallWorld {
  const orgs = access.organizations;
  const databases = orgs.flatMap((o) => [...o.databases, ...o.skippedDatabases]);
  const people = new Set(orgs.flatMap((o) => o.members.map((m) => m.email.toLowerCase())));
  for (const g of orgs.flatMap((o) => o.databases.flatMap((d) => d.grants))) {
    const email = /[^\s<>@]+@[^\s<>]+\.[^\s<>]+/.exec(g.who)?.[0];
    if (email) people.add(email.toLowerCase());
  }
  return { databases, people };
}

/** Reads `file` and judges it against the export; a file that cannot be read is a usage error naming it. */
export function readWallsForExport(file: string, access: ExportedAccess): ExportedWalls {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--walls ${file}: cannot read it (${(err as Error).message})`);
  }
  try {
    return { file, ...readWallFile(text, worldOf(access)) };
  } catch (err) {
    if (err instanceof WallFileError) throw new UsageError(`--walls ${file}: ${err.message}`);
    throw err;
  }
}

/** The end of index.ts: one EthicalWall per wall of the file, then the file's problems as comments. */
export function wallDeclarations(w: ExportedWalls): string {
  const lines = [
    "",
    `// Ethical walls from the firm's wall system: ${w.file} (pulumi-reviewadmin export --walls).`,
    "// Change them there and export again; the policy pack refuses any grant that crosses them.",
  ];
  for (const wall of w.walls) {
    const args = JSON.stringify({ ...wall.args, onBreach: "report" }, null, 2);
    lines.push(`// Matter ${wall.matter}: lines ${wall.lines.join(", ")} of the file.`);
    lines.push(`new reviewadmin.EthicalWall(${JSON.stringify(wall.name)}, ${args});`);
  }
  if (w.problems.length) {
    lines.push("//", `// In ${w.file}, not made into walls or to check (fix the file and export again):`);
    for (const p of w.problems) lines.push(`//   line ${p.line}: ${p.message.replace(/[\r\n\u2028\u2029]+/g, " ")}`);
  }
  return [...lines, ""].join("\n");
}

/** The summary's lines about the walls. */
export function wallsSummary(w: ExportedWalls): string {
  const head = `Walls from ${w.file}: ${w.walls.length} declared in index.ts (${w.walls.map((x) => x.matter).join(", ") || "none"}); ${plural(w.problems.length, "problem")}${w.problems.length ? ":" : "."}`;
  return [head, ...w.problems.map((p) => `  line ${p.line}: ${p.message}`)].join("\n");
}
