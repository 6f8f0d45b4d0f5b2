/**
 * Billing data sources: one month of an organization (E7), a parent organization (E8) or a
 * database (E28); the summaries over several months are in billingSummary.ts.
 *
 * Year and month: when left out they default to the current month in UTC, computed here and
 * sent explicitly (the spec's default is "the current year and month"; sending it makes every
 * result say which month it is, and a summary of several months needs the arithmetic anyway).
 * Near a month boundary a service in another time zone could mean a different "current" month:
 * pass year and month to be exact.
 *
 * Rules the summaries rely on (spec, "Billing semantics"): the peak size is the basis of the
 * bill; the final size is the size at month end (or now); a project suspended mid-month is billed
 * ACTIVE with final state SUSPENDED; a database's combined size is typically its largest
 * project's.
 */
import { z } from "zod";
import type { DatabaseBilling, ParentBilling } from "../../contract/types";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { monthArgs, monthLabel, readOrganizationBilling, resolveMonth } from "./billingMonths";
import { matchesName, nameFilterArgs } from "./filters";
import type { YearMonth } from "./month";
import type {
  GetBillingSummaryArgs,
  GetDatabaseBillingArgs,
  GetOrganizationBillingArgs,
  GetParentBillingSummaryArgs,
  GetParentOrganizationBillingArgs,
  MonthArgs,
} from "./argTypes.generated";

export type {
  GetBillingSummaryArgs,
  GetDatabaseBillingArgs,
  GetOrganizationBillingArgs,
  GetParentBillingSummaryArgs,
  GetParentOrganizationBillingArgs,
  MonthArgs,
  YearMonth,
};

// ------------------------------------------------------------------------------------------------
// One month
// ------------------------------------------------------------------------------------------------

/**
 * getOrganizationBilling arguments; the name filters match database names.
 * @inputType GetOrganizationBillingArgs
 */
const getOrganizationBillingArgs = z.strictObject({
  ...monthArgs.shape,
  ...nameFilterArgs.shape,
  /** The organization. */
  organizationId: idArg,
});

export interface GetOrganizationBillingResult extends YearMonth {
  /** The organization asked about. */
  organizationId: number;
  /** One billing record per database the organization owns, with its projects, after the filters. */
  databases: DatabaseBilling[];
}

/** Reads one month of an organization's billing, every database with its projects (`GET /v1/organizations/{orgId}/billing`, all pages; org admin or parent org admin). */
export const getOrganizationBilling: DataSourceFn<GetOrganizationBillingArgs, GetOrganizationBillingResult> = defineDataSource({
  name: "getOrganizationBilling",
  args: getOrganizationBillingArgs,
  read: async ({ organizationId, ...args }, ctx) => {
    const ym = resolveMonth(ctx.name, args.year, args.month);
    const all = await readOrganizationBilling(ctx, organizationId, ym);
    return { organizationId, ...ym, databases: all.filter((d) => matchesName(args, d.name)) };
  },
});

/** The Output form of getOrganizationBilling, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationBillingOutput = outputForm(getOrganizationBilling);

/**
 * getParentOrganizationBilling arguments.
 * @inputType GetParentOrganizationBillingArgs
 */
const getParentOrganizationBillingArgs = z.strictObject({
  ...monthArgs.shape,
  /** The parent organization. */
  organizationId: idArg,
});

/** getParentOrganizationBilling result: the aggregate (`GET /v1/organizations/{orgId}/billing/aggregate`) and the month it is for. */
export interface GetParentOrganizationBillingResult extends YearMonth, ParentBilling {
  /** The organization asked about. */
  organizationId: number;
}

/** Reads one month of a parent organization's billing aggregated over it and its sub-organizations (`GET /v1/organizations/{orgId}/billing/aggregate`; org admin or parent org admin). */
export const getParentOrganizationBilling: DataSourceFn<GetParentOrganizationBillingArgs, GetParentOrganizationBillingResult> =
  defineDataSource({
    name: "getParentOrganizationBilling",
    args: getParentOrganizationBillingArgs,
    read: async ({ organizationId, ...args }, { name, client, reading, callOptions }) => {
      const ym = resolveMonth(name, args.year, args.month);
      const data = await reading(`the ${monthLabel(ym)} aggregate billing of parent organization ${organizationId}`, () =>
        client.call("GetParentOrganizationBilling", { orgId: organizationId, year: ym.year, month: ym.month }, undefined, callOptions),
      );
      return { ...data, organizationId, ...ym };
    },
  });

/** The Output form of getParentOrganizationBilling, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getParentOrganizationBillingOutput = outputForm(getParentOrganizationBilling);

/**
 * getDatabaseBilling arguments.
 * @inputType GetDatabaseBillingArgs
 */
const getDatabaseBillingArgs = z.strictObject({
  ...monthArgs.shape,
  /** The database. */
  databaseId: idArg,
});

/** getDatabaseBilling result: the database's billing record with all projects (`GET /v1/databases/{databaseId}/billing`), and the month. */
export type GetDatabaseBillingResult = DatabaseBilling & YearMonth & { databaseId: number };

/** Reads one month of a database's billing with all its projects (`GET /v1/databases/{databaseId}/billing`; DB_ADMIN, or org admin or parent org admin of its owner). */
export const getDatabaseBilling: DataSourceFn<GetDatabaseBillingArgs, GetDatabaseBillingResult> = defineDataSource({
  name: "getDatabaseBilling",
  args: getDatabaseBillingArgs,
  read: async ({ databaseId, ...args }, { name, client, reading, callOptions }) => {
    const ym = resolveMonth(name, args.year, args.month);
    const data = await reading(`the ${monthLabel(ym)} billing of database ${databaseId}`, () =>
      client.call("GetDatabaseBilling", { databaseId, year: ym.year, month: ym.month }, undefined, callOptions),
    );
    return { ...data, databaseId, ...ym };
  },
});

/** The Output form of getDatabaseBilling, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseBillingOutput = outputForm(getDatabaseBilling);
