/**
 * Billing summaries over several months: billable GB by database and month, peak against final,
 * standard against eca (getBillingSummary), and a parent organization's months (getParentBillingSummary).
 * Months and the one-month reads they build on are in billing.ts.
 */
import type { DatabaseBilling, MonthStatus, Organization, ProjectBilling, Size, SizeBreakdown, SizeSet } from "../../contract/types";
import { mapLimit } from "../util";
import { idArg, intArg } from "./args";
import { csvLine } from "./spreadsheetSafe";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import type { GetBillingSummaryArgs, GetParentBillingSummaryArgs } from "./argTypes.generated";
import type { YearMonth } from "./month";
import { monthArgs, monthLabel, monthsEndingAt, readOrganizationBilling, resolveMonth } from "./billingMonths";

/** Billable gigabytes split into standard and early-case-assessment storage. */
export interface BillableGb {
  /** Standard storage, billable GB. */
  standard: number;
  /** ECA storage, billable GB. */
  eca: number;
  /** standard + eca. */
  total: number;
}

/** Peak (the basis of the bill) against final (month end, or now) billable GB. */
export interface PeakFinal {
  /** Peak size of the month: what is billed. */
  peak: BillableGb;
  /** Size at month end, or now for the current month. */
  final: BillableGb;
}

/** One project of a database in a summary row. */
export interface BillingSummaryProject extends PeakFinal {
  id: number;
  name: string;
  displayName: string;
  eca: boolean;
  partial: boolean;
  /** How the month is billed (ACTIVE, SUSPENDED, DELETED). */
  billingState: string;
  /** State at month end, or now. */
  finalState: string;
  /** Status timestamps as of the end of the month, null when not applicable. */
  suspended: string | null;
  deletionRequested: string | null;
  deleted: string | null;
}

/** One database in one month. */
export interface BillingSummaryRow extends YearMonth, PeakFinal {
  /** The owning organization. */
  organizationId: number;
  databaseId: number;
  databaseName: string;
  /** The database's combined billing state (any project ACTIVE makes it ACTIVE). */
  billingState: string;
  /** The database's combined final state. */
  finalState: string;
  /** Its projects, by id. */
  projects: BillingSummaryProject[];
}

/** One month over all databases of the summary. */
export interface BillingMonthTotal extends YearMonth, PeakFinal {
  /** How many databases have a record that month. */
  databases: number;
}

/** The months of a summary, ending with year/month. */
const summaryArgs = monthArgs.extend({
  /** How many months to cover, ending with year/month: 1..36, default 1. */
  months: intArg(1, 36).optional(),
});

/**
 * getBillingSummary arguments: `months` months ending with year/month (default: the current month only).
 * @inputType GetBillingSummaryArgs
 */
const getBillingSummaryArgs = summaryArgs.strict().extend({
  /** The organization. */
  organizationId: idArg,
});

/** getBillingSummary result: billable GB by database and month, peak against final, standard against eca. */
export interface BillingSummary {
  organizationId: number;
  /** The months covered, oldest first. */
  months: YearMonth[];
  /** One row per database and month, ordered by month then database id. */
  rows: BillingSummaryRow[];
  /** Per month, summed over the databases; oldest first. */
  totals: BillingMonthTotal[];
  /** Summed over every month covered (peak: the sum of what was billed). */
  overall: PeakFinal;
}

/** Rounds to 6 decimals: sums of billable GB without floating-point noise. */
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function gb(size: Size): BillableGb {
  const standard = size.standard.billableGb;
  const eca = size.eca.billableGb;
  return { standard, eca, total: round(standard + eca) };
}

function peakFinal(set: SizeSet): PeakFinal {
  return { peak: gb(set.peakSize), final: gb(set.finalSize) };
}

function zeroGb(): BillableGb {
  return { standard: 0, eca: 0, total: 0 };
}

function addGb(a: BillableGb, b: BillableGb): BillableGb {
  return { standard: round(a.standard + b.standard), eca: round(a.eca + b.eca), total: round(a.total + b.total) };
}

function addPeakFinal(a: PeakFinal, b: PeakFinal): PeakFinal {
  return { peak: addGb(a.peak, b.peak), final: addGb(a.final, b.final) };
}

function zeroPeakFinal(): PeakFinal {
  return { peak: zeroGb(), final: zeroGb() };
}

function stamp(status: MonthStatus, key: "suspended" | "deletionRequested" | "deleted"): string | null {
  return status[key] ?? null;
}

function projectRow(p: ProjectBilling): BillingSummaryProject {
  return {
    id: p.id,
    name: p.name,
    displayName: p.displayName,
    eca: p.eca,
    partial: p.partial,
    billingState: p.monthStatus.billingState,
    finalState: p.monthStatus.finalState,
    suspended: stamp(p.monthStatus, "suspended"),
    deletionRequested: stamp(p.monthStatus, "deletionRequested"),
    deleted: stamp(p.monthStatus, "deleted"),
    ...peakFinal(p.monthBilling),
  };
}

function summaryRow(organizationId: number, ym: YearMonth, d: DatabaseBilling): BillingSummaryRow {
  return {
    ...ym,
    organizationId,
    databaseId: d.id,
    databaseName: d.name,
    billingState: d.monthStatus.billingState,
    finalState: d.monthStatus.finalState,
    ...peakFinal(d.monthBilling),
    projects: [...d.projects].sort((a, b) => a.id - b.id).map(projectRow),
  };
}

function monthTotals(months: YearMonth[], rows: BillingSummaryRow[]): BillingMonthTotal[] {
  return months.map((ym) => {
    const of = rows.filter((r) => r.year === ym.year && r.month === ym.month);
    return { ...ym, databases: of.length, ...of.reduce<PeakFinal>((acc, r) => addPeakFinal(acc, r), zeroPeakFinal()) };
  });
}

function byMonthThenDatabase(a: BillingSummaryRow, b: BillingSummaryRow): number {
  return a.year - b.year || a.month - b.month || a.organizationId - b.organizationId || a.databaseId - b.databaseId;
}

/**
 * Summarizes an organization's billing over `months` months (`GET /v1/organizations/{orgId}/billing` per month, all pages; org admin
 * or parent org admin): billable GB by database and month, peak against final, standard against
 * eca, with the billing and final state of every database and project.
 */
export const getBillingSummary: DataSourceFn<GetBillingSummaryArgs, BillingSummary> = defineDataSource({
  name: "getBillingSummary",
  args: getBillingSummaryArgs,
  read: async ({ organizationId, ...args }, ctx) => {
    const months = monthsEndingAt(resolveMonth(ctx.name, args.year, args.month), args.months ?? 1);
    const perMonth = await mapLimit(months, 3, (ym) => readOrganizationBilling(ctx, organizationId, ym));
    const rows = months.flatMap((ym, i) => perMonth[i]!.map((d) => summaryRow(organizationId, ym, d))).sort(byMonthThenDatabase);
    const totals = monthTotals(months, rows);
    return { organizationId, months, rows, totals, overall: totals.reduce<PeakFinal>((acc, t) => addPeakFinal(acc, t), zeroPeakFinal()) };
  },
});

/** The Output form of getBillingSummary, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getBillingSummaryOutput = outputForm(getBillingSummary);

/** Active and suspended billable GB (peak and final), as the parent aggregate splits them. */
export interface ActiveSuspended {
  active: PeakFinal;
  suspended: PeakFinal;
}

/** One organization (the parent or a sub-organization) in one month of a parent summary. */
export interface ParentSummaryOrganization extends ActiveSuspended {
  organizationId: number;
  name: string;
  /** The id of its parent organization; null for the parent itself when it has none. */
  parentOrganizationId: number | null;
  /** Databases with a record that month. */
  databases: number;
  /** Sum of the databases' combined sizes (each database's largest project, whatever its state). */
  combined: PeakFinal;
}

/** One month of a parent summary. */
export interface ParentSummaryMonth extends YearMonth {
  /** The service's aggregate (`GET /v1/organizations/{orgId}/billing/aggregate`) for the month, in billable GB. */
  aggregate: ActiveSuspended;
  /** Per organization (parent first, then sub-organizations by id), computed from `GET /v1/organizations/{orgId}/billing`. */
  organizations: ParentSummaryOrganization[];
  /** The organizations' active and suspended figures summed. */
  sumOfOrganizations: ActiveSuspended;
  /** aggregate minus sumOfOrganizations, peak billable GB (active + suspended). */
  difference: number;
  /** True when the aggregate equals the sum of the organizations, within the rounding of billable GB. */
  matchesAggregate: boolean;
}

/**
 * getParentBillingSummary arguments: `months` months ending with year/month (default: the current month only).
 * @inputType GetParentBillingSummaryArgs
 */
const getParentBillingSummaryArgs = summaryArgs.strict().extend({
  /** The parent organization. */
  organizationId: idArg,
});

/** getParentBillingSummary result: a parent organization across its sub-organizations. */
export interface ParentBillingSummary {
  /** The parent organization. */
  organizationId: number;
  name: string;
  /** Every organization below it (sub-organizations, and theirs), by id. */
  subOrganizationIds: number[];
  /** The months covered, oldest first. */
  months: YearMonth[];
  /** Per month: the service's aggregate against the per-organization figures. */
  perMonth: ParentSummaryMonth[];
  /** One row per database and month over the parent and its sub-organizations, ordered by month, organization, database. */
  rows: BillingSummaryRow[];
}

function bytesOf(b: SizeBreakdown): number {
  return b.nativeBytes + b.processedBytes + b.producedBytes;
}

function sizeBytes(s: Size): number {
  return bytesOf(s.standard) + bytesOf(s.eca);
}

/** The largest size of a part (peak or final) among sets, by bytes. */
function largest(sets: SizeSet[], part: "peakSize" | "finalSize"): BillableGb {
  let best: Size | undefined;
  for (const s of sets) if (best === undefined || sizeBytes(s[part]) > sizeBytes(best)) best = s[part];
  return best === undefined ? zeroGb() : gb(best);
}

/**
 * Active and suspended figures of one database: the largest project billed ACTIVE (a project
 * suspended mid-month is billed ACTIVE) and the largest billed SUSPENDED, per part, like the
 * database's combined size takes its largest project. Deleted projects count in neither.
 */
function databaseActiveSuspended(d: DatabaseBilling): ActiveSuspended & { counted: number } {
  const by = (state: string) => d.projects.filter((p) => p.monthStatus.billingState === state).map((p) => p.monthBilling);
  const a = by("ACTIVE");
  const s = by("SUSPENDED");
  return {
    active: { peak: largest(a, "peakSize"), final: largest(a, "finalSize") },
    suspended: { peak: largest(s, "peakSize"), final: largest(s, "finalSize") },
    counted: (a.length > 0 ? 1 : 0) + (s.length > 0 ? 1 : 0),
  };
}

function addActiveSuspended(a: ActiveSuspended, b: ActiveSuspended): ActiveSuspended {
  return { active: addPeakFinal(a.active, b.active), suspended: addPeakFinal(a.suspended, b.suspended) };
}

function zeroActiveSuspended(): ActiveSuspended {
  return { active: zeroPeakFinal(), suspended: zeroPeakFinal() };
}

/** Every organization below `parentId` in `all`, at any depth, by id. */
function descendants(all: Organization[], parentId: number): Organization[] {
  const found: Organization[] = [];
  const queue = [parentId];
  const seen = new Set<number>([parentId]);
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const o of all) {
      if (o.parentOrganizationId === id && !seen.has(o.id)) {
        seen.add(o.id);
        found.push(o);
        queue.push(o.id);
      }
    }
  }
  return found.sort((a, b) => a.id - b.id);
}

/**
 * Summarizes a parent organization's billing over `months` months: per month the service's
 * aggregate (`GET /v1/organizations/{orgId}/billing/aggregate`) against the same figures computed per organization from `GET /v1/organizations/{orgId}/billing` for the parent and
 * each sub-organization (found through `GET /v1/organizations`), with a check that they add up, plus every
 * database's row. Needs org admin of the parent (parent org admin of the sub-organizations).
 */
export const getParentBillingSummary: DataSourceFn<GetParentBillingSummaryArgs, ParentBillingSummary> = defineDataSource({
  name: "getParentBillingSummary",
  args: getParentBillingSummaryArgs,
  read: async ({ organizationId, ...args }, ctx) => {
    const { client, reading, callOptions } = ctx;
    const months = monthsEndingAt(resolveMonth(ctx.name, args.year, args.month), args.months ?? 1);

    const orgs = await reading("the organizations of the API key", () => client.listAll("GetOrganizations", {}, callOptions));
    const parent =
      orgs.find((o) => o.id === organizationId) ??
      (await reading(`organization ${organizationId}`, () =>
        client.call("GetOrganization", { orgId: organizationId }, undefined, callOptions),
      ));
    const subs = descendants(orgs, organizationId);
    const members = [parent, ...subs];

    const rows: BillingSummaryRow[] = [];
    const perMonth = await mapLimit(months, 2, async (ym): Promise<ParentSummaryMonth> => {
      const aggregateRaw = await reading(`the ${monthLabel(ym)} aggregate billing of parent organization ${organizationId}`, () =>
        client.call("GetParentOrganizationBilling", { orgId: organizationId, year: ym.year, month: ym.month }, undefined, callOptions),
      );
      const aggregate: ActiveSuspended = { active: peakFinal(aggregateRaw.active), suspended: peakFinal(aggregateRaw.suspended) };
      let counted = 0;
      const organizations = await mapLimit(members, 3, async (org): Promise<ParentSummaryOrganization> => {
        const records = await readOrganizationBilling(ctx, org.id, ym);
        for (const d of records) rows.push(summaryRow(org.id, ym, d));
        let figures = zeroActiveSuspended();
        let combined = zeroPeakFinal();
        for (const d of records) {
          const f = databaseActiveSuspended(d);
          counted += f.counted;
          figures = addActiveSuspended(figures, f);
          combined = addPeakFinal(combined, peakFinal(d.monthBilling));
        }
        return {
          organizationId: org.id,
          name: org.name,
          parentOrganizationId: org.parentOrganizationId ?? null,
          databases: records.length,
          combined,
          ...figures,
        };
      });
      const sumOfOrganizations = organizations.reduce<ActiveSuspended>((acc, o) => addActiveSuspended(acc, o), zeroActiveSuspended());
      const difference = round(
        aggregate.active.peak.total +
          aggregate.suspended.peak.total -
          sumOfOrganizations.active.peak.total -
          sumOfOrganizations.suspended.peak.total,
      );
      // Each billable GB figure is rounded by the service (to 0.001 in the emulator); allow that per summed figure.
      const tolerance = 0.001 * (counted + 2) * 2;
      return { ...ym, aggregate, organizations, sumOfOrganizations, difference, matchesAggregate: Math.abs(difference) <= tolerance };
    });
    rows.sort(byMonthThenDatabase);
    return { organizationId, name: parent.name, subOrganizationIds: subs.map((o) => o.id), months, perMonth, rows };
  },
});

/** The Output form of getParentBillingSummary, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getParentBillingSummaryOutput = outputForm(getParentBillingSummary);

// ------------------------------------------------------------------------------------------------
// CSV of a summary
// ------------------------------------------------------------------------------------------------

/**
 * A billing summary's rows as CSV (RFC 4180, `\n` line ends): one line per database and month,
 * then one per project, with peak and final billable GB split into standard and eca. Ordered by
 * month, organization, database, project, so runs diff line by line.
 */
export function billingSummaryToCsv(summary: Pick<BillingSummary, "rows">): string {
  const header = [
    "month",
    "organizationId",
    "databaseId",
    "databaseName",
    "projectId",
    "projectName",
    "billingState",
    "finalState",
    "peakStandardGb",
    "peakEcaGb",
    "peakTotalGb",
    "finalStandardGb",
    "finalEcaGb",
    "finalTotalGb",
  ];
  const lines = [header.join(",")];
  const figures = (f: PeakFinal) => [f.peak.standard, f.peak.eca, f.peak.total, f.final.standard, f.final.eca, f.final.total].map(String);
  for (const r of summary.rows) {
    const month = monthLabel(r);
    lines.push(
      csvLine([month, String(r.organizationId), String(r.databaseId), r.databaseName, "", "", r.billingState, r.finalState, ...figures(r)]),
    );
    for (const p of r.projects) {
      lines.push(
        csvLine([
          month,
          String(r.organizationId),
          String(r.databaseId),
          r.databaseName,
          String(p.id),
          p.name,
          p.billingState,
          p.finalState,
          ...figures(p),
        ]),
      );
    }
  }
  return lines.join("\n") + "\n";
}
