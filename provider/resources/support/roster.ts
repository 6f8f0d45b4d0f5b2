/**
 * The shape the two rosters (OrganizationMembers, DatabaseUsers) share, on top of
 * defineResource: create and update both reconcile the live set with the map, read re-lists it
 * and writes the live roster back into the inputs (so `pulumi preview --diff` reads as an access
 * review), and delete lets go without removing anyone (removing everyone would be one typo away
 * from a lockout).
 */
import { z } from "zod";
import { ResourceError } from "../../failures";
import { containsUnknown, defineResource, PartialUpdate, type Operation, type ResourceDefinition, type Unwritten } from "./lifecycle";
import { say } from "./messages";
import { ON_UNMANAGED, ROSTER_MODES } from "../../access/rosterMode";
import { decisionHint, findingsHead, findingsText, findingText, gateFails, type GateFinding, type GateSettings } from "../../access/gate";

/** One line naming what a roster adopted on creation: "adopted 3 people already there: a, b, c". */
export function adoptionNote(action: string, what: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const shown = names.slice(0, 10).join(", ") + (names.length > 10 ? `, and ${names.length - 10} more` : "");
  const counted = names.length === 1 && what === "people" ? "1 person" : `${names.length} ${what}`;
  return `${action}: adopted ${counted} already there (${shown}); deleting the roster never removes them`;
}

/**
 * A progress reporter for a roster's writes: from 100 writes on, one line at every tenth done
 * ("creating X: 40% done, 400 of 1000 people written"), like an upload's progress. Call the
 * returned function after each write.
 */
export function progressOf(action: string, total: number, what: string): () => void {
  let done = 0;
  let logged = 0;
  return () => {
    done += 1;
    if (total < 100) return;
    const tenth = Math.floor((done / total) * 10);
    if (tenth <= logged) return;
    logged = tenth;
    say.progress(`${action}: ${tenth * 10}% done, ${done} of ${total} ${what} written`);
  };
}

/**
 * Inputs a roster's class adds by itself: what the rest of the program declares, claim key ->
 * holder (declarations.ts), so removals leave those people in place. Not part of the Args.
 */
export interface RosterInternals {
  declaredElsewhere?: Record<string, string>;
}

/** Schema of `declaredElsewhere` (absent in states written before 0.2.0). */
export const DeclaredElsewhere = z.record(z.string(), z.string()).optional();

/** The drift gate's setting (access/gate.ts); absent means "failOnPrivileged". */
export const onUnmanagedSchema = z
  .enum(ON_UNMANAGED, { message: 'must be "ignore", "report", "failOnPrivileged" or "failOnAny"' })
  .optional();

/** The mode input, required: removing people is never a default. */
export const rosterMode = z.enum(ROSTER_MODES, { message: 'must be "authoritative" or "additive"' });

/** What a roster kind supplies. */
export interface RosterDefinition<I, S> extends Pick<
  ResourceDefinition<I, S>,
  "kind" | "inputs" | "outputs" | "label" | "idOf" | "diff" | "upgrade" | "claims" | "handsOver" | "people"
> {
  /**
   * Makes the live set match the inputs; returns the state afterwards (Unwritten: nothing was
   * written). `previous`: the stored state, absent on the first time, when existing entries are adopted.
   */
  reconcile(inputs: I, op: Operation, previous: S | undefined): Promise<S | Unwritten<S>>;
  /** Reads the live set: the new state, and the inputs it stands for. */
  readLive(state: S, op: Operation): Promise<{ state: S; inputs: I }>;
  /** The preview of a create: says who the first up will find undeclared and record (access/gate.ts). */
  previewAdoption(inputs: I, op: Operation): Promise<void>;
  /** What delete logs. */
  releaseNote: string;
}

/**
 * A roster's outputs whose changes the engine prints as they are: the scalar settings. The maps and
 * lists are hidden (Pulumi's `hideDiffs`): `pulumi preview --diff` would print every unchanged
 * entry; the roster's diff says instead, one line per person, what changes (rosterChanges.ts).
 */
const SHOWN = new Set(["organizationId", "databaseId", "mode", "onUnmanaged", "allowAdminRemoval"]);

/** Builds a roster's implementation (see the file comment). */
export function rosterResource<I, S>(def: RosterDefinition<I, S>) {
  const { reconcile, readLive, releaseNote, previewAdoption, ...rest } = def;
  return defineResource<I, S>({
    ...rest,
    hideDiffs: def.outputs.filter((o) => !SHOWN.has(o)),
    async check(inputs, olds, op) {
      const creating = Object.keys(olds).length === 0;
      if (creating && op.preview && !containsUnknown(inputs)) await previewAdoption(inputs, op);
      return { inputs };
    },
    create: (inputs, op) => reconcile(inputs, op, undefined),
    update: (olds, news, op) => reconcile(news, op, olds),
    read: (state, op) => readLive(state, op),
    async delete(state) {
      say.info(`${def.label(state)}: ${releaseNote}`);
    },
  });
}

/** How a roster names, and lets the activity log describe, one person the drift gate stops on. */
export type Describe = (f: GateFinding) => Promise<string>;

/** The wording of people waiting for a decision, with who made each so when the activity log says. */
async function awaiting(op: Operation, settings: GateSettings, findings: readonly GateFinding[], describe: Describe): Promise<string> {
  const named = await Promise.all(findings.slice(0, 20).map(async (f) => findingText(f, await describe(f))));
  const more = findings.length > 20 ? findings.slice(20).map((f) => findingText(f)) : [];
  return `${op.action}: ${findingsHead(settings, findings.length)} nobody decided about: ${findingsText([...named, ...more])}`;
}

/**
 * The drift gate in a roster's diff (access/gate.ts), on the people the last run or refresh
 * found: a preview fails naming them once; an up carries on (true: the roster must update, and its
 * update fails after applying the rest); "report" warns. True when someone waits for a decision.
 */
export async function gateInDiff(
  op: Operation,
  settings: GateSettings,
  findings: readonly GateFinding[],
  describe: Describe,
  declare: string,
): Promise<boolean> {
  if (findings.length === 0) return false;
  if (!gateFails(settings)) {
    if (!op.refresh) say.warn(await awaiting(op, settings, findings, describe));
    return false;
  }
  if (op.preview && !op.refresh)
    throw new ResourceError(
      `${await awaiting(op, settings, findings, describe)}. ${decisionHint(declare)}. ` +
        `(pulumi up --skip-preview applies the rest of the program, then fails on them.)`,
    );
  return true;
}

/**
 * The drift gate after a roster's writes, on who is there now: throws a PartialUpdate naming who
 * waits for a decision (the state, with what was written, is kept), or warns ("report").
 */
export async function gateAfterWrites<S>(
  op: Operation,
  settings: GateSettings,
  findings: readonly GateFinding[],
  describe: Describe,
  declare: string,
  done: { state: S; wrote: boolean },
): Promise<void> {
  if (findings.length === 0) return;
  const text = await awaiting(op, settings, findings, describe);
  if (!gateFails(settings)) return void say.warn(text);
  const applied = done.wrote ? "Everything else this roster declares was applied" : "Nothing else in this roster needed a change";
  throw new PartialUpdate(`${text}. ${decisionHint(declare)}. ${applied}.`, done.state, done.wrote);
}

/** The drift gate in a roster's refresh: names who waits for a decision (a refresh reports; its diff says the roster drifted). */
export function gateInRead(op: Operation, settings: GateSettings, findings: readonly GateFinding[], declare: string): void {
  if (findings.length === 0) return;
  const texts = findings.map((f) => findingText(f));
  say.warn(
    `${op.action}: ${findingsHead(settings, findings.length)} nobody decided about: ${findingsText(texts)}. ${decisionHint(declare)}`,
  );
}
