/**
 * What an up did, read from what `pulumi up --json` prints (this CLI: one summary of its steps and
 * diagnostics; with streaming on, its engine events, as `--event-log FILE` and the Automation
 * API's onEvent give them): each resource step with its outputs'
 * scope (organizationId, databaseId) and person (email, userId), and what the run said about each
 * resource (its diagnostics: the per-person lines, an anti-lockout refusal). review reconcile
 * matches decisions to these; nothing here knows a decision.
 */
import { UsageError } from "../command";

/** A resource step of the up, as its engine events report it. */
export interface UpStep {
  urn: string;
  type: string;
  /** The engine's op: same, create, update, delete, replace, ... */
  op: string;
  /** Whether the step failed (resOpFailedEvent, or a check failure diagnosed as an error on the URN). */
  failed: boolean;
  organizationId?: number;
  databaseId?: number;
  email?: string;
  userId?: number;
}

/** What the run said, per resource URN (empty key: said on the stack). */
export interface UpDiagnostic {
  urn: string;
  severity: string;
  message: string;
}

/** An up's steps and diagnostics. */
export interface UpLog {
  steps: UpStep[];
  diagnostics: UpDiagnostic[];
}

/** The parts of an engine event read here (the engine's JSON event, as `pulumi up --json` prints it). */
type StepData = { outputs?: Record<string, unknown>; inputs?: Record<string, unknown> };
interface StepMetadata {
  urn?: string;
  type?: string;
  op?: string;
  new?: StepData;
  old?: StepData;
}
interface EngineEvent {
  resOutputsEvent?: { metadata?: StepMetadata };
  resOpFailedEvent?: { metadata?: StepMetadata };
  resourcePreEvent?: { metadata?: StepMetadata };
  diagnosticEvent?: { urn?: string; severity?: string; message?: string };
}

/** The summary `pulumi up --json` prints at the end of the up (the preview's JSON shape). */
interface UpSummary {
  steps?: { op?: string; urn?: string; oldState?: StepData & { type?: string }; newState?: StepData & { type?: string } }[];
  diagnostics?: { urn?: string; severity?: string; message?: string }[];
}

const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/** The scope and person fields of a step's outputs (new, else old: a deleted resource has only old). */
function scopeOf(meta: StepMetadata) {
  const o = meta.new?.outputs ?? meta.old?.outputs ?? meta.new?.inputs ?? meta.old?.inputs ?? {};
  return {
    ...(int(o.organizationId) !== undefined ? { organizationId: int(o.organizationId) } : {}),
    ...(int(o.databaseId) !== undefined ? { databaseId: int(o.databaseId) } : {}),
    ...(typeof o.email === "string" ? { email: o.email.toLowerCase() } : {}),
    ...(int(o.userId) !== undefined ? { userId: int(o.userId) } : {}),
  };
}

/**
 * The JSON values of `text` one after another, each with the line it starts on: `pulumi up --json`
 * streams its engine events (possibly indented over several lines), `--event-log` one per line.
 */
function jsonValues(name: string, text: string): { at: number; value: unknown }[] {
  const out: { at: number; value: unknown }[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth++ === 0) [start, startLine] = [i, line];
    } else if (c === "}" || c === "]") {
      if (--depth === 0) {
        try {
          out.push({ at: startLine, value: JSON.parse(text.slice(start, i + 1)) });
        } catch {
          depth = -1;
        }
      }
    } else if (depth === 0 && !/\s/.test(c)) depth = -1;
    if (depth < 0) throw new UsageError(`--up-log ${name} line ${line}: not a JSON engine event; give what \`pulumi up --json\` printed`);
  }
  return out;
}

/** Reads an up's engine events from `text` (`name` for errors). */
export function readUpLog(name: string, text: string): UpLog {
  const steps = new Map<string, UpStep>();
  const diagnostics: UpDiagnostic[] = [];
  const values = jsonValues(name, text);
  if (values.length === 0) throw new UsageError(`--up-log ${name} holds no engine event; give what \`pulumi up --json\` printed`);
  for (const { value } of values) {
    // `pulumi up --json` of this CLI prints one summary: its steps and diagnostics, not events.
    const summary = value as UpSummary;
    if (Array.isArray(summary.steps) || Array.isArray(summary.diagnostics)) {
      for (const step of summary.steps ?? []) {
        if (!step?.urn) continue;
        const state = step.newState ?? step.oldState;
        steps.set(step.urn, {
          urn: step.urn,
          type: String(state?.type ?? ""),
          op: String(step.op ?? ""),
          failed: false,
          ...scopeOf({ new: step.newState, old: step.oldState }),
        });
      }
      for (const d of summary.diagnostics ?? [])
        if (d?.message && d.severity !== "debug")
          diagnostics.push({ urn: d.urn ?? "", severity: String(d.severity), message: String(d.message) });
      continue;
    }
    const e = value as EngineEvent;
    const meta = (e.resOutputsEvent ?? e.resOpFailedEvent ?? e.resourcePreEvent)?.metadata;
    if (meta?.urn) {
      const known = steps.get(meta.urn);
      steps.set(meta.urn, {
        ...known,
        urn: meta.urn as string,
        type: String(meta.type ?? known?.type ?? ""),
        op: String(meta.op ?? known?.op ?? ""),
        failed: (known?.failed ?? false) || !!e.resOpFailedEvent,
        ...scopeOf(meta),
      });
    }
    const d = e.diagnosticEvent;
    if (d?.message && d.severity !== "debug")
      diagnostics.push({ urn: d.urn ?? "", severity: String(d.severity), message: String(d.message) });
  }
  // A check failure fails the resource without a resOpFailedEvent: its error diagnostic names it.
  for (const d of diagnostics) {
    const s = steps.get(d.urn);
    if (s && d.severity === "error") s.failed = true;
  }
  return { steps: [...steps.values()], diagnostics };
}
