/** The stack state the program runner keeps between runs, and the steps a run reports. */
import type { DiffResult } from "../pluginDriver";
import type { StepOp } from "../engineSteps";
import type { Props } from "../wire";

/** One resource of the stack state (dynamic resources only). */
export interface StateEntry {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** Checked inputs, `__provider` included, secrets unwrapped. */
  inputs: Props;
  /** Outputs, `__provider` included, secrets unwrapped. */
  outputs: Props;
  parent?: string;
  dependencies: string[];
  protect: boolean;
  retainOnDelete: boolean;
  /** Top-level keys stored as secrets (secret inputs and additionalSecretOutputs). */
  secretKeys: string[];
  /** The engine's state only: the superseded half of a replacement, deleted by the next run that gets that far. */
  pendingDelete?: boolean;
}

/** One step the run took (or would take, in preview). */
export interface Step {
  urn: string;
  type: string;
  name: string;
  op: StepOp;
  id?: string;
  /** The provider's diff, when the resource existed. */
  diff?: DiffResult;
  /** Keys whose value changed (update/replace: from the diff or the input comparison; refresh: outputs). */
  changedKeys?: string[];
  /** Refresh: stored input keys that Read rewrote (ReadResult.inputs). */
  changedInputKeys?: string[];
}

/** True for a step that changed something (anything but "same" and "refresh-same"). */
export function isChange(step: Step): boolean {
  return step.op !== "same" && step.op !== "refresh-same";
}

/**
 * Deletes `entries` as the engine does: every resource whose dependents (by dependency or
 * parent) are gone is deleted at once, in parallel with the others that are ready. After the
 * first failure nothing new starts; the deletes under way finish, and the failure is thrown.
 */
export async function deleteInParallel(entries: StateEntry[], deleteOne: (s: StateEntry) => Promise<void>): Promise<void> {
  const remaining = new Set(entries);
  const running = new Map<StateEntry, Promise<void>>();
  let failure: { err: unknown } | undefined;
  const dependentsLeft = (s: StateEntry) => [...remaining].some((o) => o !== s && (o.dependencies.includes(s.urn) || o.parent === s.urn));
  while (remaining.size > 0 && !failure) {
    for (const s of [...remaining]) {
      if (running.has(s) || dependentsLeft(s)) continue;
      running.set(
        s,
        deleteOne(s).then(
          () => {
            remaining.delete(s);
            running.delete(s);
          },
          (err: unknown) => {
            failure ??= { err };
            running.delete(s);
          },
        ),
      );
    }
    if (running.size === 0) break; // a dependency cycle: nothing can start
    await Promise.race(running.values());
  }
  await Promise.all(running.values());
  if (failure) throw failure.err;
}

/** Engine-like deletion order: dependents (by dependency or parent) before what they need, otherwise latest first. */
export function deletionOrder(entries: StateEntry[]): StateEntry[] {
  const remaining = [...entries];
  const order: StateEntry[] = [];
  while (remaining.length > 0) {
    let pick = remaining.length - 1;
    for (let i = remaining.length - 1; i >= 0; i--) {
      const urn = remaining[i]!.urn;
      const needed = remaining.some((o, j) => j !== i && (o.dependencies.includes(urn) || o.parent === urn));
      if (!needed) {
        pick = i;
        break;
      }
    }
    order.push(remaining.splice(pick, 1)[0]!);
  }
  return order;
}
