/**
 * What an up did, read from its engine events (`pulumi up --event-log FILE`: one JSON event per
 * line, as the Automation API's onEvent also gives them): each resource step with its outputs'
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

/** The parts of an engine event read here (the engine's JSON event, as `--event-log` writes it). */
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

/** Reads an up's engine events from `text` (`name` for errors). */
export function readUpLog(name: string, text: string): UpLog {
  const steps = new Map<string, UpStep>();
  const diagnostics: UpDiagnostic[] = [];
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length === 0) throw new UsageError(`--up-log ${name} is empty: give the file \`pulumi up --event-log FILE\` wrote`);
  lines.forEach((line, i) => {
    let e: EngineEvent;
    try {
      e = JSON.parse(line) as EngineEvent;
    } catch {
      throw new UsageError(`--up-log ${name} line ${i + 1}: not a JSON engine event; give the file \`pulumi up --event-log FILE\` wrote`);
    }
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
  });
  // A check failure fails the resource without a resOpFailedEvent: its error diagnostic names it.
  for (const d of diagnostics) {
    const s = steps.get(d.urn);
    if (s && d.severity === "error") s.failed = true;
  }
  return { steps: [...steps.values()], diagnostics };
}
