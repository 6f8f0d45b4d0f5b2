/**
 * The drift gate of the rosters: people in the organization (or on the database) whom the program
 * does not declare, holding access nobody reviewed. An additive roster never removes them, so
 * without a gate a new org admin made in the web application would pass `pulumi refresh` and
 * `pulumi preview --expect-no-changes` in silence.
 *
 * The gate judges drift, not the world. When the program first applies a roster, the people it
 * finds there undeclared are reported once and recorded (`foundWhenAdopted`, with what each held):
 * they were there before the program, and the gate passes them while they hold no more than that.
 * Whoever appears later, or gains more, waits for a decision: by default (`onUnmanaged:
 * "failOnPrivileged"`) a preview fails naming them once, an up applies everything else and then
 * fails naming them, and a refresh names them and reports the roster as drifted (a refresh cannot
 * fail outright: it judges with the settings of the last up, and a pull request that accepts
 * someone must be able to pass its own `preview --refresh`). Deciding ends the wait: declare them,
 * accept them as they are (`knownExceptions`, or a looser `onUnmanaged`), or remove them in the web
 * application. An authoritative roster removes the undeclared: the gate is for additive rosters.
 *
 * The gate is the access engine's last step after the planner (plan.ts), pure like it: no request,
 * no registry; the caller says who else in the run declares a person (`HeldElsewhere`).
 */
import type { ClaimKey } from "../../contract/grants";
import type { OnUnmanaged, RosterMode } from "./rosterMode";

/** One person the roster does not declare, as the gate sees them. */
export interface UnmanagedHolder {
  /** How messages name them: "mallory@evil.example", "user 1009 (mallory)". */
  who: string;
  /** Their key in `knownExceptions` and in the adoption record: the email, or the user id as text. */
  key: string;
  /** Their claim keys (handover.ts), to find them in `declaredElsewhere`. */
  keys: ClaimKey[];
  /** The permissions they hold (or, invited, will hold on accepting). */
  permissions: readonly string[];
  /** "invited": a pending invitation, whose permissions come with accepting it. */
  status?: string;
}

/** A roster's gate settings, as its inputs (or state) hold them. */
export interface GateSettings {
  mode: RosterMode;
  onUnmanaged?: OnUnmanaged;
  knownExceptions?: readonly (string | number)[];
  declaredElsewhere?: Readonly<Record<ClaimKey, string>>;
}

/**
 * The undeclared people a roster found when the program first applied it: key (email, or user id
 * as text) -> the permissions each held then. States written before it have none: every
 * undeclared person is then judged as new.
 */
export type FoundWhenAdopted = Record<string, string[]>;

/** A person the gate stops on, with the access no record covers. */
export interface GateFinding {
  holder: UnmanagedHolder;
  /** What of their access counts: their privileged permissions ("failOnAny": all of them). */
  held: string[];
  /** Held then, when the record has them: what they held when the roster was first applied. */
  heldThen?: string[];
}

/** The gate's setting, absent meaning the default. */
export const settingOf = (s: GateSettings): OnUnmanaged => s.onUnmanaged ?? "failOnPrivileged";

/** True when the setting fails runs on findings (failOn...), false when it only reports or ignores them. */
export const gateFails = (s: GateSettings) => settingOf(s).startsWith("fail");

/**
 * The resource of this run declaring any of these claim keys, if one does. The gate is pure: the
 * run's registry of claims (resources/support/handover.ts) is the caller's to pass; by default only
 * the roster's own `declaredElsewhere` input counts.
 */
export type HeldElsewhere = (keys: readonly ClaimKey[]) => string | undefined;

const inDeclared =
  (settings: GateSettings): HeldElsewhere =>
  (keys) =>
    keys.map((k) => settings.declaredElsewhere?.[k]).find((h) => h !== undefined);

/** The undeclared people the gate looks at: not accepted, not declared by another resource of the program. */
function judged(settings: GateSettings, holders: readonly UnmanagedHolder[], elsewhere: HeldElsewhere): UnmanagedHolder[] {
  if (settings.mode === "authoritative" || settingOf(settings) === "ignore") return [];
  const known = new Set((settings.knownExceptions ?? []).map(String));
  return holders.filter((h) => !known.has(h.key) && !elsewhere(h.keys));
}

/** What of a person's access counts for the setting ("failOnAny": everything, being there included). */
function counted(settings: GateSettings, h: UnmanagedHolder, privileged: (p: string) => boolean): string[] | undefined {
  const held = h.permissions.filter((p) => settingOf(settings) === "failOnAny" || privileged(p));
  return held.length || settingOf(settings) === "failOnAny" ? [...held] : undefined;
}

/** The record a roster keeps when the program first applies it: everyone the gate would judge now, with all they hold. */
export function adoptionRecord(
  settings: GateSettings,
  holders: readonly UnmanagedHolder[],
  privileged: (p: string) => boolean,
  elsewhere: HeldElsewhere = inDeclared(settings),
): FoundWhenAdopted {
  const out: FoundWhenAdopted = {};
  for (const h of judged(settings, holders, elsewhere)) if (counted(settings, h, privileged)) out[h.key] = [...h.permissions].sort();
  return out;
}

/**
 * The record as it stands: the recorded people still there undeclared, each with what they held
 * then. Someone who leaves (or is declared) leaves the record: coming back later is new.
 */
export function keptRecord(record: FoundWhenAdopted | undefined, holders: readonly UnmanagedHolder[]): FoundWhenAdopted | undefined {
  if (!record) return undefined;
  const there = new Set(holders.map((h) => h.key));
  return Object.fromEntries(Object.entries(record).filter(([key]) => there.has(key)));
}

/** The people the gate stops on: judged people whose counted access the record does not cover. */
export function gateFindings(
  settings: GateSettings,
  holders: readonly UnmanagedHolder[],
  privileged: (p: string) => boolean,
  record: FoundWhenAdopted | undefined,
  elsewhere: HeldElsewhere = inDeclared(settings),
): GateFinding[] {
  const out: GateFinding[] = [];
  for (const h of judged(settings, holders, elsewhere)) {
    const held = counted(settings, h, privileged);
    if (!held) continue;
    const then = record?.[h.key];
    if (then && held.every((p) => then.includes(p))) continue;
    out.push({ holder: h, held, ...(then ? { heldThen: then } : {}) });
  }
  return out;
}

/** One finding as messages name it: "alan@x (ORG_ADMIN)", "ken@x (AI_ADMIN, gained since ...; held ... then)". */
export function findingText(f: GateFinding, detail?: string): string {
  const held = f.held.join(", ");
  const what =
    f.holder.status === "invited" ? (held ? `invited: ${held} on accepting` : "invited, no permission") : held || "no permission";
  const then = f.heldThen ? `; held ${f.heldThen.join(", ") || "no permission"} when the roster was first applied` : "";
  return `${f.holder.who} (${what}${then}${detail ? `; ${detail}` : ""})`;
}

/** A list of findings for a message, at most 20 named. */
export function findingsText(texts: readonly string[]): string {
  return texts.slice(0, 20).join(", ") + (texts.length > 20 ? `, and ${texts.length - 20} more` : "");
}

/** "1 person ... holds" / "3 people ... hold": what the findings are, for the setting. */
export function findingsHead(settings: GateSettings, n: number): string {
  const people = n === 1 ? "1 person" : `${n} people`;
  return settingOf(settings) === "failOnAny"
    ? `${people} the program does not declare ${n === 1 ? "is" : "are"} there`
    : `${people} the program does not declare ${n === 1 ? "holds" : "hold"} privileged access`;
}

/** How to decide, worded for a roster ("Declare them in the roster's members ..."), with the settings that loosen the gate. */
export function decisionHint(declare: string): string {
  return `${declare}, or remove them in the web application (onUnmanaged: "report" lists them without failing)`;
}

/**
 * The line said once when the program first applies a roster and finds undeclared people there:
 * recorded, and passed while they hold no more than that.
 */
export function adoptionText(
  settings: GateSettings,
  holders: readonly UnmanagedHolder[],
  record: FoundWhenAdopted,
  preview = false,
): string | undefined {
  const names = holders.filter((h) => record[h.key]).map((h) => `${h.who} (${h.permissions.join(", ") || "no permission"})`);
  if (names.length === 0) return undefined;
  const recorded = preview ? "The first up records them" : "Recorded";
  return (
    `${findingsHead(settings, names.length)} already: ${findingsText(names)}. ${recorded} as found when the roster was first ` +
    `applied (the foundWhenAdopted output): the drift gate passes them while they hold no more than this. Review them: ` +
    `declare them, list them in knownExceptions, or remove them in the web application`
  );
}
