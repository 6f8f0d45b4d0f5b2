/** Billing data sources on the seeded history: one month, summaries over months, the parent aggregate. */
import { describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { SEEDED } from "../../emulator";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

function previousMonth(): { year: number; month: number } {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

describe("billing data sources", () => {
  const prev = previousMonth();

  it("a project suspended mid-month is billed ACTIVE that month with final state SUSPENDED", async () => {
    const bill = await data.getDatabaseBilling({ databaseId: SEEDED.databases.restricted, ...prev }, s.as("orgAdmin"));
    expect(bill).toMatchObject({ databaseId: SEEDED.databases.restricted, ...prev });
    const suspended = bill.projects.find((x) => x.id === SEEDED.projects.suspended)!;
    expect(suspended.monthStatus).toMatchObject({ billingState: "ACTIVE", finalState: "SUSPENDED" });
    expect(suspended.monthStatus.suspended).toMatch(/^\d{4}-\d\d-15T12:00:00/);
    // The database stays ACTIVE: another project is active.
    expect(bill.monthStatus.billingState).toBe("ACTIVE");

    const now = await data.getDatabaseBilling({ databaseId: SEEDED.databases.restricted }, s.as("orgAdmin"));
    const current = new Date();
    expect(now).toMatchObject({ year: current.getUTCFullYear(), month: current.getUTCMonth() + 1 });
    expect(now.projects.find((x) => x.id === SEEDED.projects.suspended)!.monthStatus.billingState).toBe("SUSPENDED");
    const out = await valueOf(data.getDatabaseBillingOutput({ databaseId: SEEDED.databases.restricted, ...prev }, s.as("orgAdmin")));
    expect(out).toEqual(bill);
  });

  it("getBillingSummary gives peak and final, standard and eca, by database and month; combined size never below a project's", async () => {
    const summary = await data.getBillingSummary({ organizationId: SEEDED.org, months: 3 }, s.as("orgAdmin"));
    expect(summary.months).toHaveLength(3);
    expect(summary.months[1]).toEqual(prev);
    expect(summary.rows.map((r) => [r.year, r.month, r.databaseId])).toEqual(
      summary.months.flatMap((m) => [SEEDED.databases.open, SEEDED.databases.restricted].map((id) => [m.year, m.month, id])),
    );
    for (const row of summary.rows) {
      // Combined = the union of the projects' documents: never below a project's, in either type, peak or final.
      for (const type of ["standard", "eca"] as const) {
        expect(row.peak[type]).toBeGreaterThanOrEqual(Math.max(...row.projects.map((x) => x.peak[type])) - 1e-9);
        expect(row.final[type]).toBeGreaterThanOrEqual(Math.max(...row.projects.map((x) => x.final[type])) - 1e-9);
      }
      expect(row.peak.total).toBeCloseTo(row.peak.standard + row.peak.eca, 6);
      expect(row.peak.total).toBeGreaterThanOrEqual(row.final.total - 1e-9);
    }
    // ECA storage shows for the ECA project only.
    const open = summary.rows.find((r) => r.databaseId === SEEDED.databases.open && r.month === prev.month)!;
    const eca = open.projects.find((x) => x.id === SEEDED.projects.eca)!;
    expect(eca.peak.eca).toBeGreaterThan(0);
    expect(eca.peak.standard).toBe(0);
    expect(open.projects.find((x) => x.id === SEEDED.projects.complete)!.peak.eca).toBe(0);
    // Month totals are the sums of the rows.
    for (const t of summary.totals) {
      const rows = summary.rows.filter((r) => r.year === t.year && r.month === t.month);
      expect(t.databases).toBe(rows.length);
      expect(t.peak.total).toBeCloseTo(
        rows.reduce((s, r) => s + r.peak.total, 0),
        6,
      );
    }
    const restrictedPrev = summary.rows.find((r) => r.databaseId === SEEDED.databases.restricted && r.month === prev.month)!;
    expect(restrictedPrev.projects.find((x) => x.id === SEEDED.projects.suspended)).toMatchObject({
      billingState: "ACTIVE",
      finalState: "SUSPENDED",
    });

    const out = await valueOf(data.getBillingSummaryOutput({ organizationId: SEEDED.org, months: 3 }, s.as("orgAdmin")));
    expect(out).toEqual(summary);
    const csv = data.billingSummaryToCsv(summary);
    expect(csv.split("\n")[0]).toBe(
      "month,organizationId,databaseId,databaseName,projectId,projectName,billingState,finalState,peakStandardGb,peakEcaGb,peakTotalGb,finalStandardGb,finalEcaGb,finalTotalGb",
    );
    expect(csv.trim().split("\n")).toHaveLength(1 + summary.rows.length + summary.rows.reduce((s, r) => s + r.projects.length, 0));
  });

  it("getOrganizationBilling and getParentOrganizationBilling read one month", async () => {
    const org = await data.getOrganizationBilling({ organizationId: SEEDED.org, ...prev }, s.as("orgAdmin"));
    expect(org.databases.map((d) => d.id)).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    const named = await valueOf(
      data.getOrganizationBillingOutput({ organizationId: SEEDED.org, ...prev, nameContains: "internal" }, s.as("orgAdmin")),
    );
    expect(named.databases.map((d) => d.id)).toEqual([SEEDED.databases.restricted]);
    const parent = await data.getParentOrganizationBilling({ organizationId: SEEDED.parentOrg, ...prev }, s.as("parentOrgAdmin"));
    expect(parent).toMatchObject({ organizationId: SEEDED.parentOrg, ...prev });
    expect(parent.active.peakSize.standard.billableGb).toBeGreaterThan(0);
    expect(
      await valueOf(data.getParentOrganizationBillingOutput({ organizationId: SEEDED.parentOrg, ...prev }, s.as("parentOrgAdmin"))),
    ).toEqual(parent);
    const bad = await failure(data.getOrganizationBilling({ organizationId: SEEDED.org, month: 13 }, s.as("orgAdmin")));
    expect(bad.message).toBe("getOrganizationBilling: invalid argument 'month': must be a month number from 1 to 12, got 13");
  });

  it("getParentBillingSummary: the parent aggregate equals the sum over the parent and its sub-organizations", async () => {
    const summary = await data.getParentBillingSummary({ organizationId: SEEDED.parentOrg, months: 2 }, s.as("parentOrgAdmin"));
    expect(summary.name).toBe("Northwind Holdings");
    expect(summary.subOrganizationIds).toEqual([SEEDED.org, SEEDED.subOrg]);
    expect(summary.perMonth).toHaveLength(2);
    for (const m of summary.perMonth) {
      expect(m.organizations.map((o) => o.organizationId)).toEqual([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]);
      expect(m.matchesAggregate).toBe(true);
      expect(Math.abs(m.difference)).toBeLessThan(0.01);
      const sum = m.organizations.reduce((s, o) => s + o.active.peak.total + o.suspended.peak.total, 0);
      expect(m.aggregate.active.peak.total + m.aggregate.suspended.peak.total).toBeCloseTo(sum, 2);
    }
    // Previous month: the mid-month suspension counts as active; this month the suspended project counts as suspended.
    expect(summary.perMonth[0].aggregate.suspended.peak.total).toBe(0);
    expect(summary.perMonth[1].aggregate.suspended.peak.total).toBeGreaterThan(0);
    expect(new Set(summary.rows.map((r) => r.organizationId))).toEqual(new Set([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]));
    const out = await valueOf(data.getParentBillingSummaryOutput({ organizationId: SEEDED.parentOrg, months: 2 }, s.as("parentOrgAdmin")));
    expect(out).toEqual(summary);
  });

  it("billing needs org admin: a 403 names the role", async () => {
    const err = await failure(data.getBillingSummary({ organizationId: SEEDED.org }, s.as("member")));
    expect(err.status).toBe(403);
    expect(err.message).toContain("this needs org admin of organization 102, or parent org admin");
  });
});
