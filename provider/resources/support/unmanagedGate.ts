/**
 * The drift gate of the rosters: people in the organization (or on the database) whom the program
 * does not declare, holding access nobody reviewed. An additive roster never removes them, so
 * without a gate a new org admin made in the web application would pass `pulumi refresh` and
 * `pulumi preview --expect-no-changes` in silence. By default (`onUnmanaged: "failOnPrivileged"`)
 * a refresh (its read), a preview and an up (their diff) fail while such a person holds a
 * privileged permission, naming each person and permission and how to accept them.
 *
 * A refresh reads and records them, warns, and reports the roster as drifted (so `pulumi refresh
 * --expect-no-changes` fails); it cannot fail outright, because it judges with the settings of the
 * last `up`, and a pull request that accepts someone must be able to pass its own
 * `preview --refresh`. The preview and the up judge with the program's settings, and fail.
 *
 * Accepted: people the roster's map holds, people another resource of the program declares (the
 * roster's `declaredElsewhere`), and `knownExceptions`. An authoritative roster removes the rest
 * (or leaves `protected...` in place): the gate is for additive rosters.
 */
import * as pulumi from "@pulumi/pulumi";
import { ResourceError } from "../../failures";
import { holderOf, type ClaimKey } from "./handover";
import type { OnUnmanaged, RosterMode } from "./rosterMode";

/** One person the roster does not declare, as the gate sees them. */
export interface UnmanagedHolder {
  /** How messages name them: "mallory@evil.example", "user 1009 (mallory)". */
  who: string;
  /** Their claim keys (handover.ts), to find them in `declaredElsewhere`. */
  keys: ClaimKey[];
  /** Their value in `knownExceptions`. */
  exception: string | number;
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

/** The people the gate stops on: "mallory@evil.example (ORG_ADMIN)", in the order given. */
export function gateFindings(settings: GateSettings, holders: readonly UnmanagedHolder[], privileged: (p: string) => boolean): string[] {
  const setting = settings.onUnmanaged ?? "failOnPrivileged";
  if (settings.mode === "authoritative" || setting === "ignore") return [];
  const known = new Set((settings.knownExceptions ?? []).map(String));
  return holders
    .filter((h) => !known.has(String(h.exception)) && !holderOf(h.keys, settings.declaredElsewhere ?? {}))
    .filter((h) => setting === "failOnAny" || h.permissions.some(privileged))
    .map((h) => {
      const held = h.permissions.join(", ");
      if (h.status === "invited") return `${h.who} (${held ? `invited: ${held} on accepting` : "invited, no permission"})`;
      return `${h.who} (${held || "no permission"})`;
    });
}

/**
 * Applies the gate: throws (failOn...) or warns (report) naming every finding, with `what` saying
 * what the people hold ("people the program does not declare hold organization permissions") and
 * `accept` how to accept them.
 */
export function enforceGate(action: string, settings: GateSettings, findings: readonly string[], accept: string): void {
  if (findings.length === 0) return;
  const setting = settings.onUnmanaged ?? "failOnPrivileged";
  const shown = findings.slice(0, 20).join(", ") + (findings.length > 20 ? `, and ${findings.length - 20} more` : "");
  const what =
    setting === "failOnPrivileged"
      ? `${findings.length} ${findings.length === 1 ? "person" : "people"} the program does not declare hold${findings.length === 1 ? "s" : ""} privileged access: ${shown}`
      : `${findings.length} ${findings.length === 1 ? "person" : "people"} the program does not declare: ${shown}`;
  if (setting === "report") return void pulumi.log.warn(`${action}: ${what}`);
  throw new ResourceError(
    `${action}: ${what}. ${accept}, or remove them in the web application (onUnmanaged: "report" lists them without failing)`,
  );
}
