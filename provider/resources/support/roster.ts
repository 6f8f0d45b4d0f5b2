/**
 * The shape the two rosters (OrganizationMembers, DatabaseUsers) share, on top of
 * defineResource: create and update both reconcile the live set with the map, read re-lists it
 * and writes the live roster back into the inputs (so `pulumi preview --diff` reads as an access
 * review), and delete lets go without removing anyone (removing everyone would be one typo away
 * from a lockout).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { defineResource, type Operation, type ResourceDefinition } from "./lifecycle";
import { ON_UNMANAGED, ROSTER_MODES } from "./rosterMode";

/** One line naming what a roster adopted on creation: "adopted 3 people already there: a, b, c". */
export function adoptionNote(action: string, what: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const shown = names.slice(0, 10).join(", ") + (names.length > 10 ? `, and ${names.length - 10} more` : "");
  return `${action}: adopted ${names.length} ${what} already there (${shown}); deleting the roster never removes them`;
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
    pulumi.log.info(`${action}: ${tenth * 10}% done, ${done} of ${total} ${what} written`);
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

/** The drift gate's setting (unmanagedGate.ts); absent means "failOnPrivileged". */
export const onUnmanagedSchema = z
  .enum(ON_UNMANAGED, { message: 'must be "ignore", "report", "failOnPrivileged" or "failOnAny"' })
  .optional();

/** The mode input, required: removing people is never a default. */
export const rosterMode = z.enum(ROSTER_MODES, { message: 'must be "authoritative" or "additive"' });

/** What a roster kind supplies. */
export interface RosterDefinition<I, S> extends Pick<
  ResourceDefinition<I, S>,
  "kind" | "inputs" | "outputs" | "label" | "idOf" | "diff" | "upgrade" | "claims" | "handsOver"
> {
  /** Makes the live set match the inputs; returns the state afterwards. `creating`: the first time, when existing entries are adopted. */
  reconcile(inputs: I, op: Operation, creating: boolean): Promise<S>;
  /** Reads the live set: the new state, and the inputs it stands for. */
  readLive(state: S, op: Operation): Promise<{ state: S; inputs: I }>;
  /** What delete logs. */
  releaseNote: string;
}

/** Builds a roster's implementation (see the file comment). */
export function rosterResource<I, S>(def: RosterDefinition<I, S>) {
  const { reconcile, readLive, releaseNote, ...rest } = def;
  return defineResource<I, S>({
    ...rest,
    create: (inputs, op) => reconcile(inputs, op, true),
    update: (_olds, news, op) => reconcile(news, op, false),
    read: (state, op) => readLive(state, op),
    async delete(state) {
      pulumi.log.info(`${def.label(state)}: ${releaseNote}`);
    },
  });
}
