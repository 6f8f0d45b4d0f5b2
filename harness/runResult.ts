/**
 * What one run of a stack (harness/engineStack.ts) reports: its steps, the stack state it leaves,
 * what was printed, its errors; and, for a reader, what a step changed in a resource's outputs.
 */
import type * as automation from "@pulumi/pulumi/automation";
import type { LogLine } from "./pluginDriver";
import type { StepOp } from "./engineSteps";
import { isObject, sortKeys, withoutProvider, type Props } from "./wire";

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
  /** The superseded half of a replacement, deleted by the next run that gets that far. */
  pendingDelete?: boolean;
}

/** One step the run took (or would take, in preview). */
export interface Step {
  urn: string;
  type: string;
  name: string;
  op: StepOp;
  id?: string;
  /** Keys whose value changed (update/replace: the engine's diff; refresh: the outputs). */
  changedKeys?: string[];
}

/** True for a step that changed something (anything but "same" and "refresh-same"). */
export function isChange(step: Step): boolean {
  return step.op !== "same" && step.op !== "refresh-same";
}

/** What a run did: its steps, the stack exports, what it printed, and the errors. */
export interface RunResult {
  kind: "up" | "preview" | "refresh" | "destroy";
  /** Stack exports (up); {} for the others. */
  outputs: Record<string, any>;
  steps: Step[];
  /** Number of steps other than "same"/"refresh-same". */
  changes: number;
  /** The engine's diagnostics, line by line: the program's and the provider's messages (debug lines left out). */
  logs: LogLine[];
  /** Error messages (empty on success). */
  errors: string[];
  /** Policy violations and remediations, as the engine reported them. */
  policy: automation.PolicyEvent[];
  /** What the CLI printed (its stdout): what a terminal, a CI log or a pull request's comment shows. */
  output: string;
  /** What the CLI printed on stderr: with --diff, the diagnostics (the resources' messages) go there. */
  errorOutput: string;
}

/** Thrown when a run fails; `result` is what happened until then, `causes` the errors themselves. */
export class RunError extends Error {
  constructor(
    readonly result: RunResult,
    readonly causes: unknown[],
  ) {
    super(`${result.kind} failed:\n${result.errors.map((e) => `  ${e}`).join("\n")}`);
    this.name = "RunError";
  }
}

/**
 * The outputs of a step's resource in the state before the run and after it (`__provider` left
 * out; undefined where the resource was not in that state): what the step changed, for a report.
 */
export function outputsAround(
  step: Step,
  before: ReadonlyMap<string, StateEntry>,
  after: ReadonlyMap<string, StateEntry>,
): { before?: Props; after?: Props } {
  return { before: withoutProvider(before.get(step.urn)?.outputs), after: withoutProvider(after.get(step.urn)?.outputs) };
}

/**
 * The fields that differ between two sets of outputs, one line each, with a path into nested
 * values: `members["alan@northwind.example"].permissions: [] -> ["ORG_ADMIN"]`.
 */
export function fieldChanges(before: unknown, after: unknown, at = ""): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) =>
      fieldChanges(before[k], after[k], at + (/^[A-Za-z_$][\w$]*$/.test(k) ? (at ? `.${k}` : k) : `[${JSON.stringify(k)}]`)),
    );
  }
  // Lists of records of the same length, item by item (a list of plain values is one value).
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length && [...before, ...after].every(isObject)) {
    return before.flatMap((b, i) => fieldChanges(b, after[i], `${at}[${i}]`));
  }
  if (JSON.stringify(sortKeys(before)) === JSON.stringify(sortKeys(after))) return [];
  return [`${at || "(value)"}: ${show(before)} -> ${show(after)}`];
}

function show(v: unknown): string {
  if (v === undefined) return "(absent)";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
