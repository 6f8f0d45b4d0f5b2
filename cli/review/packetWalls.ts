/**
 * The wall compliance report in the review packet (issue 37). With the access program's stack
 * (--stack, --stack-state: walls live in the program, not in the service), `review` builds the
 * report `review walls` writes, with the same code (wallReport.ts), for the period ending at "as
 * of"; the packet carries it as review.json's `walls`, a section of review.md and walls.csv,
 * each listed in the manifest. Without a stack no wall is known, and review.md says so in one line.
 */
import { EVENT_PAGE } from "./events";
import type { ReviewPacket } from "./format";
import type { WallRead } from "./manifest";
import { wallReportCsv, wallReportMarkdown, type WallReport } from "./wallReport";

/** The packet's file of the report's rows: the name `review walls` gives it. */
export const WALLS_CSV = "walls.csv";
/** Days before "as of" the period begins when neither --walls-since nor --previous says: `review walls`'s default. */
export const DEFAULT_WALL_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The period's first instant (unix ms): --walls-since when given, else just after the previous
 * review's "as of" (a monthly review reports the month since the last one), else 30 days before
 * "as of".
 */
export function wallPeriodBegin(asOf: number, o: { wallsSince?: number; previousAsOf?: number }): number {
  return o.wallsSince ?? (o.previousAsOf !== undefined ? o.previousAsOf + 1 : asOf - DEFAULT_WALL_DAYS * DAY_MS);
}

/** The line review.html's wall section holds when no wall is known: no stack was given. */
export const NO_WALLS_KNOWN =
  "**Ethical walls:** not checked (no stack given: pass --stack or --stack-state): walls are declared in the access program, not in the service; give --stack NAME or --stack-state FILE for the wall compliance report.";

/**
 * review.md's section on walls: the compliance report (times shown by `time`); nothing when no
 * wall is known (the top of review.md says the walls were not checked, and why).
 */
export function wallSection(p: ReviewPacket, time: (iso: string) => string): string[] {
  if (!p.walls) return [];
  if (p.walls.walls.length === 0) return [`**Ethical walls:** none: ${p.walls.source} declares no ethical wall.`, ""];
  // The report ends with a newline: its last line is the empty one a section ends with here.
  return wallReportMarkdown(p.walls, { title: "Ethical walls: compliance report", level: 2, time }).split("\n");
}

/** The packet's wall file: walls.csv, when the packet holds a report. */
export function wallFiles(p: ReviewPacket): Record<string, string> {
  return p.walls ? { [WALLS_CSV]: wallReportCsv(p.walls) } : {};
}

/**
 * The requests the wall report may send, from the sizes of what it read (as the review's bound
 * counts the export's lists): per wall and database, the database read twice (the wall's read, its
 * owner) and its members and users each refused once at most; each list read, in pages of 200
 * (the activity log: of 10,000).
 */
export function wallRequestBound(report: WallReport, reads: readonly WallRead[]): number {
  let bound = 4 * report.walls.reduce((n, w) => n + w.databaseIds.length, 0);
  for (const r of reads) {
    if (r.operation === "GetDatabase") continue;
    bound += Math.ceil(Math.max(1, r.reported) / (r.operation === "GetOrganizationEvents" ? EVENT_PAGE : 200));
  }
  return bound;
}
