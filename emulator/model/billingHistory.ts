/**
 * Monthly billing computed from stored history, never hard-coded.
 *
 * The store keeps one `ProjectHistory` per project (type `BillingHistories`, keyed by project
 * id; plain JSON, so it saves and loads as is). A history is a step function: a size sample
 * holds from its instant until the next sample, and status changes (suspended, reactivated,
 * deletion requested, deleted) are dated events. Everything here is pure: the same history,
 * month and clock give the same bill.
 *
 * Conventions where the spec is silent:
 * - Months are calendar months in UTC. "Now" is the emulator clock in unix milliseconds.
 * - billableGb = (nativeBytes + processedBytes + producedBytes) / 1e9 (decimal gigabytes, the
 *   storage-billing convention), rounded to 3 decimals.
 * - Peak: per storage kind (standard, eca), the observed size with the most bytes of that kind
 *   during the month, counting the size carried in at the month's first instant, and never below
 *   the final size in any field: the peak is the month's maximum and the final size is observed
 *   in the month too (a production made after the peak can raise producedBytes while the total
 *   shrinks). Starting from a real observation (not the maximum of each field over the month)
 *   keeps the bill at the largest size the project actually had.
 * - A deleted project hosts nothing: its size is zero from the deletion on.
 * - Billing state: ACTIVE when the project was active at any instant of the month; otherwise its
 *   state at the month's start (SUSPENDED or DELETED). Final state: the state at month end, or now.
 * - Status timestamps (as of the end of the requested month): `suspended` while a suspension is
 *   in force (a reactivation clears it), `deletionRequested` once requested (a reactivation
 *   cancels it), `deleted` once deleted. Absent when not applicable.
 * - Database combined size: the union of its projects' documents, so in no field (per storage
 *   type, native, processed and produced bytes; peak and final) below any project's. The emulator
 *   takes the smallest such union, each field the largest project's in that field: the projects'
 *   documents overlap as much as they can (the spec: the combined size "typically equals the size
 *   of the largest project"). The peak stays at or above the final in every field, since every
 *   project's does. (Taking the one project largest in total, as before, put a database below a
 *   project with more processed bytes and a smaller total; taking each part from whichever
 *   project was largest in it once put database 2001's peak processed bytes, 21.37 GB, below its
 *   final, 26.51 GB.)
 *   Combined status: any project ACTIVE -> ACTIVE, else any SUSPENDED -> SUSPENDED, else DELETED;
 *   a timestamp is present when every project has it, and is the latest of them (the moment the
 *   whole database reached that state).
 * - Parent aggregate: per database, the size of its largest project (most billable bytes, both
 *   types together) billed ACTIVE (a project suspended mid-month is billed ACTIVE) goes to
 *   `active` and of its largest billed SUSPENDED to `suspended`; these are summed over the
 *   databases. Deleted projects count in neither. Taking one project per database avoids counting
 *   a document once per project that holds it. (This is what the provider's parent billing
 *   summary recomputes from E7, so it stays as it was when the combined size became a union.)
 */
import type { DatabaseBilling, MonthStatus, ParentBilling, ProjectBilling, Size, SizeBreakdown, SizeSet } from "../../contract/types";
import { prng } from "./random";
import type { BillingHistories, Bytes, ProjectHistory, SizeSample, StatusChange } from "./records";

/** Billing and final state spellings (contract: ACTIVE, SUSPENDED, DELETED). */
export type BillingStateName = "ACTIVE" | "SUSPENDED" | "DELETED";

/** The bill of one project for one month. */
export interface ProjectMonth {
  monthBilling: SizeSet;
  monthStatus: MonthStatus;
}

/** What databaseBilling needs to know of a database. */
export interface BillingDatabase {
  id: number;
  name: string;
  /** ISO 8601 creation time. */
  created: string;
}

/** What databaseBilling needs to know of a project, with its history. */
export interface BillingProject {
  id: number;
  name: string;
  displayName: string;
  eca: boolean;
  partial: boolean;
  /** ISO 8601 creation time. */
  created: string;
  history: ProjectHistory;
}

const ZERO_BYTES: Bytes = { nativeBytes: 0, processedBytes: 0, producedBytes: 0 };

/** An empty history. */
export function emptyHistory(): ProjectHistory {
  return { samples: [], changes: [] };
}

/** Records a size observed at `at`, keeping the samples sorted. */
export function recordSize(history: ProjectHistory, at: number, size: { standard: Bytes; eca: Bytes }): void {
  insertSorted(history.samples, { at, standard: { ...size.standard }, eca: { ...size.eca } });
}

/** Records a status change at `at`, keeping the changes sorted. */
export function recordStatus(history: ProjectHistory, at: number, kind: StatusChange["kind"]): void {
  insertSorted(history.changes, { at, kind });
}

function insertSorted<T extends { at: number }>(list: T[], item: T): void {
  let i = list.length;
  while (i > 0 && list[i - 1].at > item.at) i--;
  list.splice(i, 0, item);
}

/** Start (inclusive) and end (exclusive) of a UTC calendar month, in unix ms. */
export function monthBounds(year: number, month: number): { start: number; end: number } {
  return { start: Date.UTC(year, month - 1, 1), end: Date.UTC(year, month, 1) };
}

/** The UTC year and month of an instant. */
export function monthOf(now: number): { year: number; month: number } {
  const d = new Date(now);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

/** The largest of each field over `sizes` (zeros for none). */
function fieldMax(sizes: readonly Bytes[]): Bytes {
  return {
    nativeBytes: Math.max(0, ...sizes.map((b) => b.nativeBytes)),
    processedBytes: Math.max(0, ...sizes.map((b) => b.processedBytes)),
    producedBytes: Math.max(0, ...sizes.map((b) => b.producedBytes)),
  };
}

function total(b: Bytes): number {
  return b.nativeBytes + b.processedBytes + b.producedBytes;
}

/** Decimal gigabytes of a breakdown, rounded to 3 decimals. */
export function billableGb(b: Bytes): number {
  return Math.round(total(b) / 1e6) / 1e3;
}

function breakdown(b: Bytes): SizeBreakdown {
  return { billableGb: billableGb(b), nativeBytes: b.nativeBytes, processedBytes: b.processedBytes, producedBytes: b.producedBytes };
}

function toSize(standard: Bytes, eca: Bytes): Size {
  return { standard: breakdown(standard), eca: breakdown(eca) };
}

function sizeBytes(s: Size): number {
  return total(s.standard) + total(s.eca);
}

/** A size set of zeros. */
export function zeroSizeSet(): SizeSet {
  return { peakSize: toSize(ZERO_BYTES, ZERO_BYTES), finalSize: toSize(ZERO_BYTES, ZERO_BYTES) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The status a history reaches applying the changes before `until` (exclusive), with the
 * timestamps still in force.
 */
function statusBefore(changes: StatusChange[], until: number) {
  let state: BillingStateName = "ACTIVE";
  let suspended: number | undefined;
  let deletionRequested: number | undefined;
  let deleted: number | undefined;
  for (const c of changes) {
    if (c.at >= until) break;
    switch (c.kind) {
      case "suspended":
        if (state !== "DELETED") [state, suspended] = ["SUSPENDED", c.at];
        break;
      case "reactivated":
        if (state !== "DELETED") [state, suspended, deletionRequested] = ["ACTIVE", undefined, undefined];
        break;
      case "deletionRequested":
        deletionRequested = c.at;
        break;
      case "deleted":
        [state, deleted] = ["DELETED", c.at];
        break;
    }
  }
  return { state, suspended, deletionRequested, deleted };
}

/** The state a project is in at an instant (changes at or before it applied). */
export function statusAt(history: ProjectHistory, at: number): BillingStateName {
  return statusBefore(history.changes, at + 1).state;
}

/**
 * One project's bill for a month: peak and final size, billing and final state, change
 * timestamps. `now` bounds the month when it has not ended (final = current size).
 */
export function projectMonth(history: ProjectHistory, year: number, month: number, now: number): ProjectMonth {
  const { start, end } = monthBounds(year, month);
  // Observations run over [start, until): to month end, or up to and including now.
  const until = Math.max(start + 1, Math.min(end, now + 1));
  const deletedAt = history.changes.find((c) => c.kind === "deleted")?.at ?? Infinity;

  // The size in force at an instant: the last sample at or before it; nothing once deleted.
  const sizeAt = (t: number): { standard: Bytes; eca: Bytes } => {
    if (t >= deletedAt) return { standard: ZERO_BYTES, eca: ZERO_BYTES };
    let found: SizeSample | undefined;
    for (const s of history.samples) {
      if (s.at > t) break;
      found = s;
    }
    return found ?? { standard: ZERO_BYTES, eca: ZERO_BYTES };
  };

  const observed = [sizeAt(start), ...history.samples.filter((s) => s.at > start && s.at < until && s.at < deletedAt)];
  const largest = (kind: "standard" | "eca") => observed.reduce((best, s) => (total(s[kind]) > total(best) ? s[kind] : best), ZERO_BYTES);
  const final = sizeAt(until - 1);
  // The month's maximum is never below what was observed at its end, field by field.
  const peak = (kind: "standard" | "eca"): Bytes => fieldMax([largest(kind), final[kind]]);

  const atStart = statusBefore(history.changes, start + 1);
  const atEnd = statusBefore(history.changes, until);
  const reactivatedInMonth = history.changes.some((c) => c.kind === "reactivated" && c.at > start && c.at < until);
  const billingState: BillingStateName = atStart.state === "ACTIVE" || reactivatedInMonth ? "ACTIVE" : atStart.state;

  const monthStatus: MonthStatus = { billingState, finalState: atEnd.state };
  if (atEnd.suspended !== undefined) monthStatus.suspended = iso(atEnd.suspended);
  if (atEnd.deletionRequested !== undefined) monthStatus.deletionRequested = iso(atEnd.deletionRequested);
  if (atEnd.deleted !== undefined) monthStatus.deleted = iso(atEnd.deleted);

  return {
    monthBilling: {
      peakSize: toSize(peak("standard"), peak("eca")),
      finalSize: toSize(final.standard, final.eca),
    },
    monthStatus,
  };
}

/**
 * A database's combined size, the union of its projects' documents: per part (peak, final), per
 * storage type and per field, the largest of its projects' (see the conventions at the top);
 * zeros for no projects.
 */
export function combinedSizeSet(sets: readonly SizeSet[]): SizeSet {
  const union = (part: "peakSize" | "finalSize", type: "standard" | "eca"): Bytes => fieldMax(sets.map((s) => s[part][type]));
  const size = (part: "peakSize" | "finalSize") => toSize(union(part, "standard"), union(part, "eca"));
  return { peakSize: size("peakSize"), finalSize: size("finalSize") };
}

/** The size set of the largest project (both types together), per part (peak, final); zeros for no projects. */
export function largestSizeSet(sets: readonly SizeSet[]): SizeSet {
  const pick = (part: "peakSize" | "finalSize") =>
    sets.reduce<Size | undefined>((best, s) => (best === undefined || sizeBytes(s[part]) > sizeBytes(best) ? s[part] : best), undefined);
  const zero = zeroSizeSet();
  return { peakSize: pick("peakSize") ?? zero.peakSize, finalSize: pick("finalSize") ?? zero.finalSize };
}

/** Sum of size sets, billableGb recomputed from the summed bytes. */
export function sumSizeSets(sets: readonly SizeSet[]): SizeSet {
  const add = (a: Bytes, b: SizeBreakdown): Bytes => ({
    nativeBytes: a.nativeBytes + b.nativeBytes,
    processedBytes: a.processedBytes + b.processedBytes,
    producedBytes: a.producedBytes + b.producedBytes,
  });
  const sum = (part: "peakSize" | "finalSize"): Size => {
    let standard = ZERO_BYTES;
    let eca = ZERO_BYTES;
    for (const s of sets) [standard, eca] = [add(standard, s[part].standard), add(eca, s[part].eca)];
    return toSize(standard, eca);
  };
  return { peakSize: sum("peakSize"), finalSize: sum("finalSize") };
}

function mergeState(states: string[]): BillingStateName {
  if (states.length === 0 || states.includes("ACTIVE")) return "ACTIVE";
  return states.includes("SUSPENDED") ? "SUSPENDED" : "DELETED";
}

/** The merge of project statuses into a database status (see the conventions at the top). */
export function mergeStatus(statuses: readonly MonthStatus[]): MonthStatus {
  const merged: MonthStatus = {
    billingState: mergeState(statuses.map((s) => s.billingState)),
    finalState: mergeState(statuses.map((s) => s.finalState)),
  };
  for (const key of ["suspended", "deletionRequested", "deleted"] as const) {
    const stamps = statuses.map((s) => s[key]);
    if (statuses.length > 0 && stamps.every((t) => typeof t === "string")) {
      merged[key] = stamps.reduce((a, b) => (Date.parse(b!) > Date.parse(a!) ? b : a));
    }
  }
  return merged;
}

/**
 * A database's bill for a month: every project created before the month's end (or now), with
 * the combined size (the union of the projects') and merged status.
 */
export function databaseBilling(
  db: BillingDatabase,
  projects: readonly BillingProject[],
  year: number,
  month: number,
  now: number,
): DatabaseBilling {
  const { end } = monthBounds(year, month);
  const until = Math.min(end, now + 1);
  const records: ProjectBilling[] = projects
    .filter((p) => Date.parse(p.created) < until)
    .sort((a, b) => a.id - b.id)
    .map((p) => ({
      created: p.created,
      displayName: p.displayName,
      eca: p.eca,
      id: p.id,
      name: p.name,
      partial: p.partial,
      ...projectMonth(p.history, year, month, now),
    }));
  return {
    created: db.created,
    id: db.id,
    name: db.name,
    monthBilling: combinedSizeSet(records.map((r) => r.monthBilling)),
    monthStatus: mergeStatus(records.map((r) => r.monthStatus)),
    projects: records,
  };
}

/**
 * A parent organization's month from the billing records of every database of it and its
 * sub-organizations: active and suspended sizes (see the conventions at the top).
 */
export function parentAggregate(records: readonly DatabaseBilling[]): ParentBilling {
  const active: SizeSet[] = [];
  const suspended: SizeSet[] = [];
  for (const db of records) {
    const by = (state: string) => db.projects.filter((p) => p.monthStatus.billingState === state).map((p) => p.monthBilling);
    const a = by("ACTIVE");
    const s = by("SUSPENDED");
    if (a.length > 0) active.push(largestSizeSet(a));
    if (s.length > 0) suspended.push(largestSizeSet(s));
  }
  return { active: sumSizeSets(active), suspended: sumSizeSets(suspended) };
}

/** What seedBillingHistory needs to know of a project. */
export interface SeedProject {
  id: number;
  /** ISO 8601 or unix ms. */
  created: string | number;
  eca: boolean;
  /** Suspended now: the history gets a suspension in the middle of the previous month. */
  suspended?: boolean;
}

const DAY = 86_400_000;

/** Mid-month of the month before `now`'s: the 15th at 12:00 UTC. */
export function midPreviousMonth(now: number): number {
  const { year, month } = monthOf(now);
  return Date.UTC(year, month - 2, 15, 12);
}

/**
 * Generates up to a year (ending at `now`) of daily size samples per project, deterministic for
 * a seed: sizes grow most days and sometimes shrink (documents deleted). A project flagged
 * `suspended` is suspended on the 15th of the previous month (so that month is billed ACTIVE
 * with final state SUSPENDED, and the current month SUSPENDED) and stops growing; the seeding
 * store should flag at least one project so. Data lands in `eca` for ECA projects, in
 * `standard` otherwise.
 */
export function seedBillingHistory(seed: number | (() => number), projects: readonly SeedProject[], now: number): BillingHistories {
  const rng = typeof seed === "number" ? prng(seed) : seed;
  const histories: BillingHistories = {};
  for (const p of [...projects].sort((a, b) => a.id - b.id)) {
    const created = typeof p.created === "number" ? p.created : Date.parse(p.created);
    const history = emptyHistory();
    const first = Math.max(created, now - 365 * DAY);
    const suspendAt = p.suspended ? Math.max(midPreviousMonth(now), first + 1) : Infinity;
    let native = Math.round((1 + rng() * 49) * 1e9); // 1 to 50 GB at the start
    const processedRatio = 0.3 + rng() * 0.3;
    let producedRatio = 0;
    for (let at = first; at <= now && at < suspendAt; at += DAY) {
      const r = rng();
      if (r < 0.05)
        native = Math.round(native * 0.9); // a batch of documents deleted
      else native = Math.round(native * (1 + rng() * 0.02));
      if (r > 0.97) producedRatio = Math.min(0.2, producedRatio + 0.02); // a production was made
      const bytes: Bytes = {
        nativeBytes: native,
        processedBytes: Math.round(native * processedRatio),
        producedBytes: Math.round(native * producedRatio),
      };
      history.samples.push({ at, standard: p.eca ? { ...ZERO_BYTES } : bytes, eca: p.eca ? bytes : { ...ZERO_BYTES } });
    }
    if (suspendAt <= now) history.changes.push({ at: suspendAt, kind: "suspended" });
    histories[String(p.id)] = history;
  }
  return histories;
}
