/** The stack state the program runner keeps between runs, and the steps a run reports. */
import type { DiffResult } from "../pluginDriver";
import type { StepOp } from "../steps";
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
