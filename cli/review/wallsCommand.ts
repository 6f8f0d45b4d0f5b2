/**
 * `pulumi-reviewadmin review walls`: the wall compliance report (wallReport.ts) of a stack's
 * ethical walls for a period, written as walls.md, walls.csv and walls.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { serviceTime } from "../../provider/access/clock";
import { currentClient } from "../../provider/settings";
import { plural, timeOption, UsageError, type Command } from "../command";
import { credentialOptions, credentials } from "../credentials";
import { readStack } from "./stack";
import { buildWallReport, wallReportCsv, wallReportMarkdown, type WallReport } from "./wallReport";

const DEFAULT_OUT = "wall-report";
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

/** The walls subcommand of review. */
export const wallsCommand: Command = {
  name: "review walls",
  summary: "the ethical wall compliance report of a stack for a period",
  description: `
For each EthicalWall of the access program's stack: the breaches of the period found in the
activity log (who made them, when), when each was fixed and by whom (a removal in the web
application, or the wall's own onBreach "remove", which its state keeps), what is unenforceable
and why (an org admin reaching a database that keeps orgAdminAccess on), and the exceptions in
force on the period's last day. Open breaches and unenforceable access are as the service shows
them now. Writes walls.md, walls.csv and walls.json into --out. Reads only: no write request.

The period: --since and --until (ISO 8601 or unix ms; --as-of is --until), by default the ${DEFAULT_DAYS} days
up to the service's clock. Credentials as for review.
`,
  options: {
    out: { type: "string", value: "DIR", help: `folder to write walls.md, walls.csv and walls.json into (default ${DEFAULT_OUT})` },
    stack: { type: "string", value: "NAME", help: "the access program's stack, read with `pulumi stack export` here" },
    "stack-state": { type: "string", value: "FILE", help: "the output of `pulumi stack export`, instead of --stack" },
    since: { type: "string", value: "TIME", help: `the period's first instant (default: ${DEFAULT_DAYS} days before --until)` },
    until: { type: "string", value: "TIME", help: "the period's last instant (default: the service's clock)" },
    "as-of": { type: "string", value: "TIME", help: "the same as --until" },
    ...credentialOptions,
    json: { type: "boolean", help: "print the report as JSON on stdout as well" },
  },
  examples: [
    "pulumi-reviewadmin review walls --stack prod --since 2026-10-01T00:00:00Z --until 2026-10-31T23:59:59Z --out walls-2026-10",
    "pulumi-reviewadmin review walls --stack-state state.json --as-of 2026-11-30T00:00:00Z",
  ],

  async run(o, io) {
    if (o.until !== undefined && o["as-of"] !== undefined) throw new UsageError("give --until or --as-of, not both");
    const stack = readStack({ stack: o.stack as string | undefined, stackState: o["stack-state"] as string | undefined });
    if (!stack)
      throw new UsageError("give --stack NAME or --stack-state FILE: the walls are declared in the access program, not in the service");
    const out = (o.out as string | undefined) ?? DEFAULT_OUT;
    if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new UsageError(`--out must be a folder; ${out} is a file`);
    const givenUntil = timeOption("until", o.until ?? o["as-of"]);
    const givenSince = timeOption("since", o.since);
    const client = currentClient(credentials(o));
    let report: WallReport;
    try {
      const until = givenUntil ?? (await serviceTime(client));
      const since = givenSince ?? until - DEFAULT_DAYS * DAY_MS;
      if (since >= until) throw new UsageError(`--since must be before --until (${new Date(until).toISOString()})`);
      report = await buildWallReport(client, { source: stack.source, walls: stack.declared.walls ?? [], infos: stack.infos }, since, until);
    } finally {
      await client.close();
    }
    fs.mkdirSync(out, { recursive: true });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    fs.writeFileSync(path.join(out, "walls.md"), wallReportMarkdown(report));
    fs.writeFileSync(path.join(out, "walls.csv"), wallReportCsv(report));
    fs.writeFileSync(path.join(out, "walls.json"), json);
    const count = (f: (w: WallReport["walls"][number]) => number) => report.walls.reduce((n, w) => n + f(w), 0);
    if (o.json === true) io.out(json);
    else
      io.out(
        `Wall report for ${report.since} to ${report.until}: ${plural(report.walls.length, "wall")}, ${plural(
          count((w) => w.breaches.length),
          "breach",
          "breaches",
        )} ` +
          `(${count((w) => w.breaches.filter((b) => b.status === "fixed").length)} fixed), ${count((w) => w.unenforceable.length)} unenforceable, ` +
          `${plural(
            count((w) => w.exceptionsInForce.length),
            "exception",
          )} in force; written to ${path.join(out, "walls.md")}, walls.csv and walls.json.`,
      );
    return 0;
  },
};
