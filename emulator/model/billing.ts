/**
 * Billing as the service keeps it: every project's history in the world (`billing`), seeded for
 * the seeded world, made on first use for a project created later, and kept in line with the
 * project's `suspended` flag; the bills of E7, E8 and E28 computed from it by billingHistory.ts's
 * pure functions, for a month that has begun.
 */
import type { DatabaseBilling, ParentBilling } from "../../contract/types";
import { databaseBilling, monthBounds, monthOf, parentAggregate, recordStatus, seedBillingHistory, statusAt } from "./billingHistory";
import type { Databases } from "./databases";
import { BadRequest } from "./errors";
import type { Organizations } from "./organizations";
import type { DatabaseRecord, ProjectHistory, ProjectRecord } from "./records";
import type { World } from "./world";

/** A month that has begun, and the instant its bills are computed at (the emulator's now). */
export interface BillingMonth {
  year: number;
  month: number;
  now: number;
}

/** Billing histories of projects and the bills computed from them. */
export class Billing {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
    private readonly databases: Databases,
  ) {}

  /**
   * The month asked for, each part defaulting to the current one's by the emulator clock; a
   * month after the current one is refused (BadRequest naming the parameter).
   */
  month(year?: number, month?: number): BillingMonth {
    const now = this.world.clock.now();
    const current = monthOf(now);
    const y = year ?? current.year;
    const m = month ?? current.month;
    if (y > current.year) throw new BadRequest("year", `must not be after the current year (${current.year})`);
    if (y === current.year && m > current.month) {
      throw new BadRequest("month", `must not be after the current month (${current.year}-${String(current.month).padStart(2, "0")})`);
    }
    return { year: y, month: m, now };
  }

  /** Replaces every history with a seeded year of them for the projects there are now (seed.ts). */
  seed(seed: number): void {
    const projects = this.databases.allProjects().map((p) => ({ id: p.id, created: p.created, eca: p.eca, suspended: p.suspended }));
    this.world.billing = seedBillingHistory(seed, projects, this.world.clock.now());
    this.world.changed();
  }

  /**
   * The project's history, made on first use for a project the seed did not cover (one created
   * later by the control API or a benchmark), and brought in line with the project's `suspended`
   * flag, which the control API may have changed since.
   */
  history(project: ProjectRecord): ProjectHistory {
    const now = this.world.clock.now();
    let history = this.world.billing[project.id];
    if (!history) {
      // Seeded by the project id, so the history does not depend on the order of requests.
      history = seedBillingHistory(project.id, [{ id: project.id, created: project.created, eca: project.eca }], now)[project.id];
      this.world.billing[project.id] = history;
      this.world.changed();
    }
    const state = statusAt(history, now);
    if (project.suspended && state === "ACTIVE") {
      recordStatus(history, now, "suspended");
      this.world.changed();
    } else if (!project.suspended && state === "SUSPENDED") {
      recordStatus(history, now, "reactivated");
      this.world.changed();
    }
    return history;
  }

  /** E28: a database's bill for the month. */
  ofDatabase(db: DatabaseRecord, { year, month, now }: BillingMonth): DatabaseBilling {
    const projects = this.databases.projectsOf(db.id).map((p) => ({
      id: p.id,
      name: p.name,
      displayName: p.displayName,
      eca: p.eca,
      partial: p.partial,
      created: p.created,
      history: this.history(p),
    }));
    return databaseBilling({ id: db.id, name: db.name, created: db.created }, projects, year, month, now);
  }

  /** E7: one bill per database of the organization that existed during the month, in id order. */
  ofOrganization(organizationId: number, month: BillingMonth): DatabaseBilling[] {
    const until = Math.min(monthBounds(month.year, month.month).end, month.now + 1);
    return this.databases
      .of(organizationId)
      .filter((db) => Date.parse(db.created) < until)
      .map((db) => this.ofDatabase(db, month));
  }

  /** E8: active and suspended sizes over the organization and its sub-organizations, at any depth. */
  ofParent(organizationId: number, month: BillingMonth): ParentBilling {
    const ids = [organizationId];
    for (let i = 0; i < ids.length; i++) ids.push(...this.organizations.subOrganizations(ids[i]).map((o) => o.id));
    return parentAggregate(ids.flatMap((id) => this.ofOrganization(id, month)));
  }
}
