/**
 * What the billing data sources share and do not publish: month arithmetic, the year and month
 * arguments and the one-month read of an organization (billing.ts, billingSummary.ts). Kept out
 * of billing.ts so that the package's declarations never reach zod through it.
 */
import { z } from "zod";
import { params } from "../../contract";
import type { DatabaseBilling } from "../../contract/types";
import { numberArg, parseArgs } from "./args";
import type { YearMonth } from "./month";
import type { ReadContext } from "./defineDataSource";

/** The current month in UTC (what year and month default to). */
function currentMonthUtc(now: Date = new Date()): YearMonth {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
}

/**
 * Year and month arguments: each defaults to the current one (UTC).
 * @inputType MonthArgs
 */
export const monthArgs = z.object({
  /** Four-digit year; default the current year (UTC). */
  year: numberArg(params.year.unwrap()).optional(),
  /** 1..12; default the current month (UTC). */
  month: numberArg(params.month.unwrap()).optional(),
});

/**
 * Resolves optional year and month to a month: each left-out part is the current UTC one. Throws
 * the DataSourceError of a bad argument (as the data sources' own schemas word it) on out-of-range values.
 */
export function resolveMonth(dataSource: string, year?: number, month?: number): YearMonth {
  const now = currentMonthUtc();
  const given = parseArgs(dataSource, monthArgs.strict(), { year, month });
  return { year: given.year ?? now.year, month: given.month ?? now.month };
}

/** The `count` months ending with `last`, oldest first. */
export function monthsEndingAt(last: YearMonth, count: number): YearMonth[] {
  const out: YearMonth[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const index = last.year * 12 + (last.month - 1) - i;
    out.push({ year: Math.floor(index / 12), month: (index % 12) + 1 });
  }
  return out;
}

/** "2026-11" for November 2026. */
export function monthLabel(m: YearMonth): string {
  return `${m.year}-${String(m.month).padStart(2, "0")}`;
}

/** One month of an organization's billing, all pages (`GET /v1/organizations/{orgId}/billing`): what the one-month read and the summaries share. */
export async function readOrganizationBilling(
  { client, reading, callOptions }: ReadContext,
  organizationId: number,
  ym: YearMonth,
): Promise<DatabaseBilling[]> {
  return reading(`the ${monthLabel(ym)} billing of organization ${organizationId}`, () =>
    client.listAll("GetOrganizationBilling", { orgId: organizationId, year: ym.year, month: ym.month }, callOptions),
  );
}
