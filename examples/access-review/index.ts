/**
 * access-review: who can do what in an organization, and what it costs, with data sources only.
 * Nothing is created: `pulumi up` reads, sets the stack outputs and writes a Markdown report to
 * commit next to the program, so that the next review's diff shows who gained or lost access.
 *
 * Config (all optional): `organizationId` (default 102, the emulator's Northwind Legal),
 * `billingMonths` (default 3), `staleDays` (default 90), `reportPath` (default ./access-review.md,
 * relative to this folder).
 * Credentials are the provider's stack config (`reviewadmin:apiKey`, `reviewadmin:baseUrl`).
 *
 * The review an auditor signs off (last activity, flags, what changed since the last review and
 * who changed it, sign-offs applied to access.ts) is `pulumi-reviewadmin review`, run on a
 * schedule by examples/gitops/review.yml, which commits its packet (docs/gitops.md, step 6).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";

const config = new pulumi.Config();
const organizationId = config.getNumber("organizationId") ?? 102;
const billingMonths = config.getNumber("billingMonths") ?? 3;
const staleDays = config.getNumber("staleDays") ?? 90;
const reportPath = path.resolve(config.get("reportPath") ?? "access-review.md");

/**
 * The firm's ethical walls, as the EthicalWall resources of its access program declare them (a
 * data source cannot read another stack's resources): the report says whether each still holds.
 */
const walls = [
  {
    name: "nvc-wall",
    databaseIds: [2001],
    people: ["ken@northwind.example", "*@contoso.example"],
    reason: "Northwind v. Contoso: Ken advised Contoso",
  },
];

const matrix = reviewadmin.getAccessMatrixOutput({ organizationId, walls });
const billing = reviewadmin.getBillingSummaryOutput({ organizationId, months: billingMonths });

const gb = (n: number) => n.toFixed(2);

/** The billing part of the report: month totals, then the latest month by database. */
function billingMarkdown(summary: reviewadmin.BillingSummary): string {
  const lines = [
    `## Billing, last ${summary.months.length} month(s)`,
    "",
    "Peak billable GB (what is billed) and final GB (month end, or now).",
    "",
    "| Month | Databases | Peak standard | Peak ECA | Peak total | Final total |",
    "|---|---:|---:|---:|---:|---:|",
    ...summary.totals.map(
      (t) =>
        `| ${t.year}-${String(t.month).padStart(2, "0")} | ${t.databases} | ${gb(t.peak.standard)} | ${gb(t.peak.eca)} | ${gb(t.peak.total)} | ${gb(t.final.total)} |`,
    ),
    `| **All** | | | | **${gb(summary.overall.peak.total)}** | |`,
  ];
  const last = summary.months[summary.months.length - 1];
  const rows = summary.rows.filter((r) => r.year === last.year && r.month === last.month);
  if (rows.length > 0) {
    lines.push(
      "",
      `### ${last.year}-${String(last.month).padStart(2, "0")} by database`,
      "",
      "| Database | State | Peak total | Final total | Projects |",
      "|---|---|---:|---:|---|",
      ...rows.map(
        (r) =>
          `| ${r.databaseName} (${r.databaseId}) | ${r.billingState} | ${gb(r.peak.total)} | ${gb(r.final.total)} | ${r.projects.map((p) => `${p.displayName} ${p.billingState}`).join(", ")} |`,
      ),
    );
  }
  return lines.join("\n") + "\n";
}

/** The whole report: the access matrix as the provider renders it, then billing. */
const report = pulumi.all([matrix, billing]).apply(([m, b]) => `${reviewadmin.toMarkdown(m)}\n${billingMarkdown(b)}`);

/** Where the report was written (only by `pulumi up`; a preview writes nothing). */
export const reportFile = report.apply((text) => {
  if (!pulumi.runtime.isDryRun()) fs.writeFileSync(reportPath, text);
  return reportPath;
});

/** Counts: members, org admins, invitations, databases, database users. */
export const accessSummary = matrix.summary;
/** The whole matrix: members, invitations, and each database's users. */
export const accessMatrix = matrix;
/** One line per grant, as CSV (scope, who, permissions). */
export const accessCsv = matrix.apply(reviewadmin.toCsv);
/** Billable GB per month, summed over the databases. */
export const billingTotals = billing.totals;
/** Billable GB over the months covered. */
export const billingOverall = billing.overall;
/** One row per database and month. */
export const billingRows = billing.rows;
/**
 * The privileged people with no activity in the last `staleDays` days (config, default 90), as of
 * the service's clock (so `asOf` moves with every run). Exported by an access program, it is what
 * the policy pack's advisory stale-privileged-access rule judges at preview (docs/policy.md).
 */
export const stalePrivilegedPeople = reviewadmin.getStalePrivilegedPeopleOutput({ organizationId, staleDays });
