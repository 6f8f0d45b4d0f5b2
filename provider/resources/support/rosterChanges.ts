/**
 * What a roster's preview says it will do, as a reviewer reads it: one line per person who changes
 * (added, changed, removed) and one per setting that changes, and nothing about the people who do
 * not. The engine would print every entry of the roster's map under `pulumi preview --diff` (the
 * dynamic-provider plugin cannot tell it which entries changed), so the maps' diffs are hidden
 * (`hideDiffs`) and this message, attached to the roster, is the access review of a pull request,
 * whatever the roster's size.
 */
import deepEqual from "fast-deep-equal";

/** At most this many person lines are shown (the rest are counted): a bulk change stays readable. */
export const MAX_LINES = 500;

/** Permissions as a reviewer reads them: "ORG_ADMIN, AI_ADMIN", or "no permission". */
export function permissionsText(list: readonly string[]): string {
  return list.length ? list.join(", ") : "no permission";
}

/** "+ a, - b" between two sets of values, or undefined when they hold the same. */
export function setChange(before: readonly unknown[] = [], after: readonly unknown[] = []): string | undefined {
  const b = new Set(before.map(String));
  const a = new Set(after.map(String));
  const parts = [...[...a].filter((x) => !b.has(x)).map((x) => `+ ${x}`), ...[...b].filter((x) => !a.has(x)).map((x) => `- ${x}`)];
  return parts.length ? parts.join(", ") : undefined;
}

/** A claim key as a person: `member:102:email:ada@x` -> "ada@x", `grant:2001:1003` -> "user 1003". */
function claimed(key: string): string {
  const [kind, , ...rest] = key.split(":");
  if (kind === "grant") return `user ${rest.join(":")}`;
  const [how, ...who] = rest;
  return how === "user" ? `user ${who.join(":")}` : who.join(":");
}

/** How one setting of a roster is said, and its value when left out. */
export interface SettingRule {
  key: string;
  /** The value when the program leaves it out. */
  absent?: unknown;
  /** What an added entry of a list setting means ("accepted as they are"). */
  meaning?: string;
}

/**
 * One line per setting that differs between the stored state and the program's inputs
 * ("knownExceptions: + alan@x (accepted as they are)"); a change of these is a change of the
 * roster, stored by the next up, even when no person changes.
 */
export function settingLines(olds: object, news: object, rules: readonly SettingRule[]): string[] {
  const o = olds as Record<string, unknown>;
  const n = news as Record<string, unknown>;
  const lines: string[] = [];
  for (const { key, absent, meaning } of rules) {
    const before = o[key] ?? absent;
    const after = n[key] ?? absent;
    if (deepEqual(before, after)) continue;
    if (key === "declaredElsewhere") {
      // Who is declared elsewhere, not by which resource: renaming that resource changes nothing here.
      const was = (before ?? {}) as Record<string, string>;
      const now = (after ?? {}) as Record<string, string>;
      const parts = [
        ...Object.keys(now)
          .filter((k) => !(k in was))
          .map((k) => `+ ${claimed(k)} (${now[k]})`),
        ...Object.keys(was)
          .filter((k) => !(k in now))
          .map((k) => `- ${claimed(k)}`),
      ];
      if (parts.length) lines.push(`declared elsewhere in the program: ${[...new Set(parts)].join(", ")}`);
    } else if (Array.isArray(before ?? []) && Array.isArray(after ?? [])) {
      const change = setChange((before ?? []) as unknown[], (after ?? []) as unknown[]);
      if (change) lines.push(`${key}: ${change}${meaning && change.includes("+") ? ` (${meaning})` : ""}`);
    } else lines.push(`${key}: ${JSON.stringify(before ?? null)} -> ${JSON.stringify(after ?? null)}`);
  }
  return lines;
}

/**
 * The roster's message for a preview: "<label>: 2 people change" and a line each ("+ joan@x:
 * AI_ADMIN", "~ margaret@x: CLOUD_MANAGEMENT_ADMIN -> no permission", "- bob@x: ... (why)"), then
 * its setting lines; undefined when nothing changes.
 */
export function changeMessage(label: string, people: readonly string[], settings: readonly string[], noun = "people"): string | undefined {
  if (people.length === 0 && settings.length === 0) return undefined;
  const head = people.length
    ? `${label}: ${people.length} ${people.length === 1 ? (noun === "people" ? "person" : noun.replace(/s$/, "")) : noun} change${people.length === 1 ? "s" : ""}`
    : `${label}: settings change`;
  const shown = people.slice(0, MAX_LINES).map((l) => `  ${l}`);
  if (people.length > MAX_LINES) shown.push(`  ... and ${people.length - MAX_LINES} more`);
  return [head, ...shown, ...settings.map((l) => `  ${l}`)].join("\n");
}

/** One entry of a roster as the preview compares it. */
export interface EntryView {
  /** Undefined: the roster does not manage this entry's permissions. */
  permissions?: readonly string[];
  /** The identifiers as text ('AT "Alan Turing"'), when managed. */
  identifiers?: string;
  /** "active", "invited", "expired" (an invitation). */
  status?: string;
}

/** A roster's plan as the preview says it (entryLines). */
export interface PlanView {
  /** How a key is named: "alan@x", "user 1003 (alan)". */
  name(key: string): string;
  /** The keys the map declares today. */
  declared: readonly string[];
  /** One of them as declared (asked only for the entries that get a line: a roster holds thousands). */
  want: (key: string) => EntryView;
  /** One entry as live (or as last read); undefined when it is not. */
  have: (key: string) => EntryView | undefined;
  add: readonly string[];
  change: readonly string[];
  remove: readonly string[];
  /** End dates the map declares now, and as stored by the last up. */
  ends: Record<string, string>;
  storedEnds: Record<string, string>;
  /** Entries past their end, by key. */
  expired: Record<string, string>;
  /** Why an entry not past its end is removed ("not in the members of this authoritative roster"). */
  removedWhy: string;
  /** Who added a removed entry outside the program, when the activity log says. */
  addedBy: ReadonlyMap<string, string>;
  /** Keys the map now declares that were already there as declared: nothing to write, now managed. */
  adopted?: readonly string[];
  /** Keys the map no longer holds that an additive roster leaves as they are, and what that means. */
  dropped: readonly string[];
  droppedNote: (key: string) => string;
  /** Order of keys in the lines. */
  order: (a: string, b: string) => number;
}

/** One line per entry the plan adds, changes or removes, or whose end date changes (see changeMessage). */
export function entryLines(v: PlanView): string[] {
  const lines: string[] = [];
  const until = (k: string) => (v.ends[k] ? `, until ${v.ends[k]}` : "");
  const endChanged = (k: string) => (v.ends[k] ?? null) !== (v.storedEnds[k] ?? null);
  for (const k of v.add) {
    const w = v.want(k);
    const ids = w.identifiers ? `, identifiers ${w.identifiers}` : "";
    lines.push(`+ ${v.name(k)}: ${w.permissions ? permissionsText(w.permissions) : "permissions not managed"}${ids}${until(k)}`);
  }
  const adding = new Set(v.add);
  const changes = new Set([...v.change, ...v.declared.filter((k) => !adding.has(k) && endChanged(k))]);
  for (const k of [...changes].sort(v.order)) {
    const w = v.want(k);
    const h = v.have(k);
    const parts: string[] = [];
    if (h && w.permissions && !deepEqual(w.permissions, h.permissions))
      parts.push(`${permissionsText(h.permissions ?? [])} → ${permissionsText(w.permissions)}`);
    if (h?.status === "active" && w.identifiers !== undefined && w.identifiers !== h.identifiers)
      parts.push(`identifiers ${h.identifiers || "none"} → ${w.identifiers || "none"}`);
    if (h?.status === "expired") parts.push("the invitation expired: invited again");
    if (endChanged(k)) parts.push(`access ends ${v.storedEnds[k] ?? "never"} → ${v.ends[k] ?? "never"}`);
    if (parts.length) lines.push(`~ ${v.name(k)}${h?.status === "invited" ? " (invited)" : ""}: ${parts.join("; ")}`);
  }
  for (const k of v.remove) {
    const h = v.have(k)!;
    const why = v.expired[k] ? `expired on ${v.expired[k]}` : v.removedWhy;
    const by = v.addedBy.get(k);
    const status = h.status && h.status !== "active" ? ` (${h.status})` : "";
    lines.push(`- ${v.name(k)}${status}: ${permissionsText(h.permissions ?? [])} (${why}${by ? `; ${by}` : ""})`);
  }
  for (const k of [...(v.adopted ?? [])].sort(v.order))
    lines.push(
      `~ ${v.name(k)}: now in the map, already there as declared (${permissionsText(v.have(k)?.permissions ?? [])}): nothing to write`,
    );
  for (const k of [...v.dropped].sort(v.order)) lines.push(`~ ${v.name(k)}: no longer in the map: ${v.droppedNote(k)}`);
  return lines;
}

/** A field's value as a reviewer reads it: lists joined, identifiers as `AT "Alan Turing"`, nothing as "none". */
function valueText(v: unknown): string {
  if (v === undefined || v === null) return "none";
  if (Array.isArray(v)) {
    if (v.length === 0) return "none";
    return v
      .map((x) =>
        x && typeof x === "object" && "abbreviation" in x
          ? `${String(x.abbreviation)} "${String((x as { label?: unknown }).label)}"`
          : valueText(x),
      )
      .join(", ");
  }
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/**
 * What changes in a per-person resource, for its preview: "permissions: AI_ADMIN → no permission;
 * expiresOn: none → 2027-01-31", over the inputs the program sets (a field left out is not
 * managed); undefined when no field differs from the state.
 */
export function fieldChanges(state: object, inputs: object, skip: readonly string[] = []): string | undefined {
  const s = state as Record<string, unknown>;
  const parts: string[] = [];
  for (const [key, want] of Object.entries(inputs)) {
    if (want === undefined || key.startsWith("__") || skip.includes(key) || deepEqual(s[key], want)) continue;
    parts.push(`${key}: ${valueText(s[key])} → ${valueText(want)}`);
  }
  return parts.length ? parts.join("; ") : undefined;
}
