/**
 * The one shape of every resource. A resource file declares what is its own (inputs schema,
 * label, diff rule, and create/read/update/delete against the API) with `defineResource`; this
 * module turns that into the dynamic-provider methods the plugin calls, and owns what they all
 * share: `__provider` stripping, input checking that tolerates preview unknowns, the wording of
 * failures, "404 on read means gone", "404 on delete means done", the state schema version and
 * outputs free of `undefined`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import deepEqual from "fast-deep-equal";
import { z } from "zod";
import type { ReviewAdminClient } from "../../client";
import { explainFailure, isStatus, ResourceError } from "../../failures";
import { engineLog, quiet, urnOf } from "../../pluginHost";
import { serviceNow } from "../../access/clock";
import { definedOnly } from "../../util";
import type { ClaimKey } from "./handover";
import type { ResourceImplementation } from "./implementation";
import { say, withResource, type ResourceOf } from "./messages";
import { fieldChanges } from "./rosterChanges";
import type { Run } from "./run";
import { driftedTargets, targetOfGrant, whoChanged, whoChangedPeople, type GrantRef, type People } from "./whoChanged";

/** The engine's placeholder for a value not known during preview, whatever the field's type. */
export const UNKNOWN: string = unknownValue;

/** Version of the state this code writes; every version reads the states older ones wrote (see CHANGELOG.md). */
export const SCHEMA_VERSION = 1;

/** The output naming when the program last created or updated the resource (absent in states older than it). */
export const APPLIED_AT = "appliedAt";

/** The service's time now (its Date header, carried forward), to the whole second, as ISO. */
export function appliedAt(client: ReviewAdminClient): string {
  const ms = serviceNow(client);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString();
}

/**
 * What the program tells the provider beside the inputs, which check takes out (never stored):
 * - `__preview`: true during a preview (`pulumi preview`, and the preview `pulumi up` runs first).
 *   The plugin cannot tell a preview's diff from an up's, and some refusals must fail a preview
 *   but let an up apply everything else first.
 * - `__urn`: the resource's URN, so its messages are attached to it (messages.ts) from its check on,
 *   whether or not the plugin's requests carry it here (pluginHost.ts).
 * - `__normal`: true when the program's own parse of the args, by the same installed package,
 *   gave them back unchanged (`inNormalForm`): checking them again here would too.
 */
export const RUN_MARKS = { preview: "__preview", urn: "__urn", normal: "__normal" } as const;

/** What a resource's own code gets for one operation: its run, the run's client, and the action to name in its errors. */
export interface Operation {
  /** The run this operation belongs to (run.ts): its settings, claims and messages. */
  readonly run: Run;
  /** The run's client (created on first use). */
  readonly client: ReviewAdminClient;
  /** E.g. "creating OrgMember ada@x.example in organization 102"; errors worded by the resource start with it. */
  readonly action: string;
  /**
   * Diff only: this is the diff `pulumi refresh` runs right after reading the resource, to tell
   * drift (the state just read against the program's inputs). It must report, not look up or
   * refuse: lookups are skipped, and a refusal (anti-lockout) counts as a change.
   */
  readonly refresh?: boolean;
  /** True when this run is a preview: nothing will be written after it (check and diff only know it). */
  readonly preview: boolean;
  /** When the program last created or updated the resource (unix ms), from its stored state; absent for a create or an older state. */
  readonly appliedAt?: number;
}

/** A plan-time finding beyond the schema. */
export type CheckFailure = pulumi.dynamic.CheckFailure;

/**
 * A declarative diff: fields compared after `normalize`; `replaceOn` fields replace, every other
 * input updates in place except those in `ignore` (each with its reason at the call site), so a
 * new input is compared without anyone listing it. A field absent from the new inputs is not
 * managed and never a change.
 */
export interface DiffRule {
  replaceOn: readonly string[];
  ignore?: readonly string[];
  normalize?: (field: string, value: unknown) => unknown;
  /** Replace by deleting first (default: create the new one first). */
  deleteBeforeReplace?: boolean;
}

/** Everything that is a resource's own. `I`: checked inputs; `S`: the state it stores (outputs). */
export interface ResourceDefinition<I, S> {
  /** The type name: `pulumi-nodejs:dynamic/reviewadmin:<kind>`. */
  kind: string;
  /** Schema of the inputs; it normalizes them (lower-cased emails, sorted sets) and names the field of every problem. */
  inputs: z.ZodType<I>;
  /**
   * Every output name, seeded on the class so Pulumi creates an output property for each: every
   * field of `S`, no more, as `outputsMatch<S>()([...])` checks at compile time.
   */
  outputs: OutputList<S>;
  /** Properties whose diff the engine does not print (ResourceShape.hideDiffs). */
  hideDiffs?: readonly string[];
  /** Names the object in messages: "OrgMember ada@x.example in organization 102". */
  label(s: I | S): string;
  /** The resource id for a state. */
  idOf(state: S): string;
  /**
   * Plan-time checks after the schema (a file, a CSV, anti-lockout of a create that adopts); may
   * return inputs with computed fields. Runs during previews too: inputs may then hold UNKNOWN, to
   * be judged at `up`. `olds` is empty for a create (a replacement's create included). It may read
   * the API, never write.
   */
  check?(inputs: I, olds: Partial<I>, op: Operation): Promise<{ failures: CheckFailure[] } | { inputs: I }>;
  /** A DiffRule, or a function for what a rule cannot say (it may read the API, e.g. for anti-lockout at preview). */
  diff: DiffRule | ((olds: S, news: I, op: Operation) => Promise<pulumi.dynamic.DiffResult> | pulumi.dynamic.DiffResult);
  /** Brings the platform in line with the inputs (adopting what exists) and returns the state (Unwritten: nothing was written). */
  create(inputs: I, op: Operation): Promise<S | Unwritten<S>>;
  /**
   * Reads the live object: its state, and the inputs it stands for (so the next preview shows
   * drift); undefined when it is gone. Left out when the API has no read: refresh keeps the state.
   */
  read?(state: S, op: Operation): Promise<{ state: S; inputs?: I } | undefined>;
  /** Applies changed inputs; left out when every change replaces. Unwritten: nothing was written; PartialUpdate: stopped after writing. */
  update?(olds: S, news: I, op: Operation): Promise<S | Unwritten<S>>;
  /** Removes the object, or says why it stays (an API without delete). A 404 counts as done. */
  delete(state: S, op: Operation): Promise<void>;
  /**
   * The people and grants these inputs declare (handover.ts): recorded at check, so that a delete
   * of the same person or grant by another resource in this run hands over instead of removing.
   */
  claims?(inputs: I): ClaimKey[];
  /** The one grant a per-person resource is about, for who-changed at refresh (whoChanged.ts). */
  subject?(state: S): GrantRef;
  /** A roster's people, for who-changed at refresh: whose entries differ between stored and live state (whoChanged.ts). */
  people?(state: S): People;
  /** The keys whose claim by a resource of this run makes this resource's delete hand over. */
  holds?(state: S): ClaimKey[];
  /** Rosters: the claim-key prefix their removals hand over, undefined when they remove nobody (ResourceShape.handsOver). */
  handsOver?(inputs: I): string | undefined;
  /** Reads a state written by any older version of this package (default: as stored). */
  upgrade?(stored: Record<string, unknown>): S;
}

/**
 * A create that failed after the object came to exist (an upload stopped half-way): the engine
 * keeps the resource with this state, and the next `up` finishes it in update. The message is
 * already worded for the user.
 */
export class IncompleteCreate<S> extends ResourceError {
  constructor(
    message: string,
    readonly state: S,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * An update that applied what it could and then stopped, with a reason worded for the user (a
 * person waiting for a decision): the engine stores `state` and reports the failure, and the next
 * run updates the resource again. `wrote` false keeps the stored appliedAt.
 */
export class PartialUpdate<S> extends ResourceError {
  constructor(
    message: string,
    readonly state: S,
    readonly wrote: boolean,
  ) {
    super(message);
  }
}

/** What create or update return when they wrote nothing: the state, with the stored appliedAt kept. */
export class Unwritten<S> {
  constructor(readonly state: S) {}
}

/** True for the preview placeholder, anywhere in a value. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (value === null || typeof value !== "object") return false;
  // Plain loops: a roster's map is tens of thousands of objects, walked at every Check and Diff.
  if (Array.isArray(value)) {
    for (const v of value) if (containsUnknown(v)) return true;
    return false;
  }
  for (const k in value) if (containsUnknown((value as Record<string, unknown>)[k])) return true;
  return false;
}

/** Removes `__provider` (the serialized provider the engine adds) before a value reaches the API or a schema. */
export function stripProvider(props: unknown): Record<string, unknown> {
  const { __provider: _provider, ...rest } = (props ?? {}) as Record<string, unknown>;
  return rest;
}

function underUnknown(value: unknown, path: readonly PropertyKey[]): boolean {
  let cur: unknown = value;
  if (cur === UNKNOWN) return true;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return false;
    cur = (cur as Record<PropertyKey, unknown>)[key];
    if (cur === UNKNOWN) return true;
  }
  return false;
}

// zod's compiled fast path of each schema, made at its first parse: the same result in two thirds
// of the time at 28,007 entries (`npm run bench -- --only roster`); input that fails goes to the
// runtime parser, so the issues are the same.
// eslint-disable-next-line no-restricted-syntax -- process-wide: compiled code of each kind's schema; one entry per schema.
const compiledSchemas = new WeakMap<z.ZodType, z.ZodType>();
function compiled<T>(schema: z.ZodType<T>): z.ZodType<T> {
  let c = compiledSchemas.get(schema);
  if (!c) compiledSchemas.set(schema, (c = z.compile(schema)));
  return c as z.ZodType<T>;
}

/**
 * Validates and normalizes inputs with a schema. Issues under a preview unknown are dropped (the
 * value is checked again at `up`); each other issue becomes a failure naming the field and the
 * rule. `__provider` is kept so the engine stores it.
 */
export function checkInputs<I>(
  schema: z.ZodType<I>,
  news: unknown,
): { inputs: I; failures?: undefined } | { inputs: Record<string, unknown>; failures: CheckFailure[] } {
  const raw = stripProvider(news);
  const provider = (news as Record<string, unknown> | undefined)?.__provider;
  const result = compiled(schema).safeParse(raw);
  if (result.success) return { inputs: { ...(result.data as object), __provider: provider } as I };
  const failures: CheckFailure[] = [];
  for (const issue of result.error.issues) {
    if (underUnknown(raw, issue.path)) continue;
    const property = issue.path.length ? issue.path.map(String).join(".") : "(inputs)";
    failures.push({ property, reason: issue.message });
  }
  // With only unknown-related issues, keep the raw inputs: they are checked again at `up`.
  return { inputs: news as Record<string, unknown>, failures };
}

/** Applies a DiffRule (see there). */
export function diffFields(olds: object, news: object, rule: DiffRule): pulumi.dynamic.DiffResult {
  const o = olds as Record<string, unknown>;
  const n = news as Record<string, unknown>;
  const norm = rule.normalize ?? ((_f: string, v: unknown) => v);
  const changed = (f: string) => n[f] !== undefined && !deepEqual(norm(f, o[f]), norm(f, n[f]));
  const replaces = rule.replaceOn.filter((f) => n[f] !== undefined && o[f] !== undefined && changed(f));
  const skip = new Set([...rule.replaceOn, ...(rule.ignore ?? [])]);
  const updates = Object.keys(n).filter((f) => !f.startsWith("__") && !skip.has(f) && changed(f));
  return {
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 ? (rule.deleteBeforeReplace ?? false) : undefined,
  };
}

const mapDefined = <A, B>(a: A | undefined, f: (a: A) => B): B | undefined => (a === undefined ? undefined : f(a));

/** Inputs that are bookkeeping, not access: left out of what a preview says changes. */
export const QUIET_FIELDS = ["declaredElsewhere", "resendTrigger", "createAfterLostAnswer", "adoptId"];

/** Marks the stored state an import id stands for (plugin/importIds.ts): its read is a first look, not drift. */
const IMPORT_READ = Symbol.for("pulumi-reviewadmin.importRead");

/** `stored`, marked as an import's: read then reports no drift and names nobody who changed it. */
export function asImport<T extends object>(stored: T): T {
  return Object.defineProperty(stored, IMPORT_READ, { value: true });
}

const isImport = (props: unknown) => !!props && typeof props === "object" && IMPORT_READ in props;

function operation(run: Run, action: string, more: { refresh?: boolean; appliedAt?: number } = {}): Operation {
  return {
    run,
    action,
    refresh: more.refresh ?? false,
    preview: run.preview,
    ...(more.appliedAt !== undefined ? { appliedAt: more.appliedAt } : {}),
    get client() {
      return run.client;
    },
  };
}

/** The stored appliedAt of `props` as unix ms, if any. */
function appliedAtOf(props: unknown): number | undefined {
  const applied = stripProvider(props)[APPLIED_AT];
  const ms = typeof applied === "string" ? Date.parse(applied) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Takes the run marks out of the program's inputs (RUN_MARKS): the inputs, the URN given, and whether they are in normal form. */
function takeRunMarks(run: Run, news: unknown): { news: unknown; urn?: string; normal?: boolean } {
  if (!news || typeof news !== "object" || !Object.values(RUN_MARKS).some((m) => m in news)) return { news };
  const { [RUN_MARKS.preview]: preview, [RUN_MARKS.urn]: urn, [RUN_MARKS.normal]: normal, ...rest } = news as Record<string, unknown>;
  if (preview === true) run.learnPreview();
  return { news: rest, ...(typeof urn === "string" && urn ? { urn } : {}), ...(normal === true ? { normal } : {}) };
}

/**
 * True when the schema need not run: the program found the inputs in their normal form (the
 * schema gives them back unchanged) and they are the stored inputs (`olds`) as they are. At 28,007
 * people the schema was most of a no-change run's Check (docs/engine.md). `declaredElsewhere`,
 * which the program adds after its own parse, is a record of text its schema gives back as it is.
 */
function checkedBefore(olds: unknown, news: unknown, normal: boolean | undefined): boolean {
  return normal === true && deepEqual(olds, news);
}

/**
 * Turns a resource's definition into the methods the plugin calls (see the file comment). Typed
 * as the zod-free ResourceImplementation: the resource modules export what this returns.
 */
export function defineResource<I, S>(def: ResourceDefinition<I, S>): ResourceImplementation {
  // A definition never sees appliedAt: it is the lifecycle's record, not the resource's state.
  const stateOf = (props: unknown): S => {
    const { [APPLIED_AT]: _applied, ...stored } = stripProvider(props);
    return def.upgrade ? def.upgrade(stored) : (stored as S);
  };
  const inputsOf = (props: unknown): I => stripProvider(props) as I;
  const outputsOf = (state: S) => definedOnly({ ...(state as object), schemaVersion: SCHEMA_VERSION });
  /** The stored appliedAt, as outputs to keep (none in states older than it). */
  const keptApplied = (props: unknown): { [APPLIED_AT]?: string } => {
    const applied = stripProvider(props)[APPLIED_AT];
    return typeof applied === "string" ? { [APPLIED_AT]: applied } : {};
  };
  /** Outputs after a write: the state, and when this program applied it (appliedAt). */
  const appliedOutputs = (run: Run, state: S) => ({ ...outputsOf(state), [APPLIED_AT]: appliedAt(run.client) });

  /** Runs one operation, wording any failure as "<action>: <cause>". */
  async function perform<T>(run: Run, action: string, fn: (op: Operation) => Promise<T>, more?: { appliedAt?: number }): Promise<T> {
    try {
      return await fn(operation(run, action, more));
    } catch (err) {
      throw explainFailure(action, err);
    }
  }

  // Program-side views of the definition (declarations.ts), on the args as the program passes them;
  // parsed once per args object (a roster's declares and handsOver both ask, 28,007 entries each).
  const parses = new WeakMap<object, { data: I | undefined }>();
  const parsed = (args: Record<string, unknown>): I | undefined => {
    let hit = parses.get(args);
    if (!hit) {
      const r = compiled(def.inputs).safeParse(stripProvider(args));
      parses.set(args, (hit = { data: r.success ? r.data : undefined }));
    }
    return hit.data;
  };
  const declares = def.claims ? (args: Record<string, unknown>) => mapDefined(parsed(args), def.claims!) : undefined;
  const inNormalForm = (args: Record<string, unknown>) => {
    const p = parsed(args);
    return p !== undefined && deepEqual(p, args);
  };
  const handsOver = def.handsOver ? (args: Record<string, unknown>) => mapDefined(parsed(args), def.handsOver!) : undefined;

  /**
   * A failure of check, diff, read or delete, worded for the user: the plugin prints those with
   * their stack before the engine prints them again, so the plugin's copy is dropped (pluginHost.ts).
   */
  const worded = (err: unknown) => (err instanceof ResourceError ? quiet(err) : err);

  /** The URN of the resource `props` (a request's values) are about: carried by the request, or given by the program at check. */
  const urnFor = (run: Run, props: unknown, labelled: () => string | undefined) => {
    const label = labelled();
    return urnOf(props) ?? (label === undefined ? undefined : run.urnOf(def.kind, label));
  };
  /**
   * The resource `id`, for an operation's messages: its URN as `urn` gives it or, failing that, as
   * a request about the id named it (the plugin process's first request: run.ts urnOfId), and its
   * key for messages held until the URN is known (messages.ts), when a later request can name it.
   */
  const resource = <T>(run: Run, id: string, urn: string | undefined, named?: (result: T) => boolean): ResourceOf<T> => ({
    urn: urn ?? run.urnOfId(def.kind, id),
    key: `${def.kind} ${id}`,
    // Held only where an engine takes messages by URN: without one they are printed anyway.
    ...(named && run.urnsComeById && engineLog() ? { named } : {}),
  });
  /** A read that found the resource (it returns an id): refresh diffs it next, a request that names its URN. */
  const diffedNext = (result: object) => "id" in result;
  const labelOf = (props: unknown) => () => {
    try {
      return def.label(stripProvider(props) as I & S);
    } catch {
      return undefined;
    }
  };

  /** The outputs of a create or update's result (Unwritten keeps the stored appliedAt). */
  const resultOutputs = (run: Run, result: S | Unwritten<S>, olds: unknown) =>
    result instanceof Unwritten ? { ...outputsOf(result.state), ...keptApplied(olds) } : appliedOutputs(run, result);

  return {
    definition: { ...def, declares, handsOver, inNormalForm },

    check: (run, olds, raw) => {
      const { news, urn, normal } = takeRunMarks(run, raw);
      return withResource(run, urnOf(raw) ?? urn, async () => {
        // Stored inputs never hold a value a preview does not know.
        const same = checkedBefore(olds, news, normal);
        // Equal to the stored inputs: the program's own values are given back, so that its texts are kept (runtime.ts).
        const checked = same ? { inputs: news as I, failures: undefined } : checkInputs(def.inputs, news);
        if (!checked.failures && def.claims && (same || !containsUnknown(checked.inputs))) {
          const inputs = inputsOf(checked.inputs);
          run.claims.claim(() => def.claims!(inputs), def.label(inputs));
        }
        // Only failures under preview unknowns left: the resource's own check still runs on what is known.
        if (!checked.failures && urn) run.nameUrn(def.kind, def.label(inputsOf(checked.inputs)), urn);
        if (checked.failures?.length || !def.check) return checked;
        const inputs = inputsOf(checked.inputs);
        const previous = inputsOf(olds) as Partial<I>;
        const creating = Object.keys(previous as object).length === 0;
        const more = await def
          .check(inputs, previous, operation(run, `${creating ? "creating" : "updating"} ${def.label(inputs)}`))
          .catch((err: unknown) => Promise.reject(worded(err)));
        if ("failures" in more)
          return more.failures.length ? { inputs: news as Record<string, unknown>, failures: more.failures } : checked;
        return { inputs: { ...(more.inputs as object), __provider: (news as Record<string, unknown>).__provider } };
      });
    },

    diff: (run, id, olds, news) =>
      withResource(run, resource(run, id, urnOf(olds) ?? urnFor(run, news, labelOf(news))), async () => {
        const state = stateOf(olds);
        const inputs = inputsOf(news);
        const rule = def.diff;
        if (typeof rule !== "function") return diffFields(state as object, inputs as object, rule);
        const appliedAt = appliedAtOf(olds);
        // Since Pulumi 3.123 refresh calls Diff after each Read (the read state as olds, the
        // program's inputs as news) to tell drift; in that diff a refusal is drift, not a failure.
        if (run.readThenDiffed(def.kind, id)) {
          return Promise.resolve()
            .then(() => rule(state, inputs, operation(run, `refreshing ${def.label(state)}`, { refresh: true, appliedAt })))
            .catch(() => ({ changes: true }));
        }
        const result = await perform(run, `updating ${def.label(state)}`, async (op) => rule(state, inputs, op), { appliedAt }).catch(
          (err: unknown) => Promise.reject(worded(err)),
        );
        // A per-person resource says what changes, as a roster does person by person (rosterChanges.ts):
        // the preview's Diagnostics are what a pull request's comment holds.
        const changed = result.changes && !def.hideDiffs ? fieldChanges(state as object, inputs as object, QUIET_FIELDS) : undefined;
        if (changed) say.info(`${def.label(inputs)}: ${result.replaces?.length ? "replaced: " : ""}${changed}`);
        return result;
      }),

    create: (run, raw) =>
      withResource(run, urnFor(run, raw, labelOf(raw)), async () => {
        const inputs = inputsOf(raw);
        try {
          const result = await perform(run, `creating ${def.label(inputs)}`, (op) => def.create(inputs, op));
          const state = result instanceof Unwritten ? result.state : result;
          return { id: def.idOf(state), outs: resultOutputs(run, result, {}) };
        } catch (err) {
          if (!(err instanceof IncompleteCreate)) throw err;
          // The plugin reports an error carrying id and properties as a partial create
          // (ErrorResourceInitFailed): the engine keeps the half-created resource in state.
          const state = err.state as S;
          const properties = { ...outputsOf(state), __provider: (raw as Record<string, unknown>).__provider };
          throw Object.assign(err, { id: def.idOf(state), properties, reasons: [err.message] });
        }
      }),

    read: (run, id, props) =>
      withResource(run, resource(run, id, urnFor(run, props, labelOf(props)), diffedNext), async () => {
        const stored = stateOf(props);
        // When the program last wrote the resource is kept across reads: the service has no such fact.
        const kept = keptApplied(props);
        const applied = appliedAtOf(props);
        if (!def.read) return { id, props: { ...outputsOf(stored), ...kept } };
        const read = def.read;
        try {
          const op = operation(run, `reading ${def.label(stored)}`, { appliedAt: applied });
          const found = await read(stored, op);
          // Drift on a person (changed or gone behind the program's back): say who did it, from the
          // activity log since the program last applied the resource.
          const same = !!found && deepEqual(outputsOf(found.state), outputsOf(stored));
          if (!isImport(props) && !same) {
            const one = def.subject?.(stored);
            const how = found ? "changed" : "removed";
            if (one)
              say.warn(
                `refreshing ${def.label(stored)}: ${how} outside this program: ${await whoChanged(op.client, targetOfGrant(one, applied))}`,
              );
            const people = def.people ? driftedTargets(def.people(stored), found && def.people(found.state), applied) : [];
            if (people.length)
              say.warn(`refreshing ${def.label(stored)}: changed outside this program: ${await whoChangedPeople(op.client, people)}`);
          }
          if (!found) return {};
          run.recordRead(def.kind, id);
          return {
            id,
            // Nothing drifted: the stored values themselves, which the shim packs back as their stored texts without comparing again.
            props: { ...outputsOf(same ? stored : found.state), ...kept },
            ...(found.inputs ? { inputs: definedOnly(found.inputs as object) } : {}),
          };
        } catch (err) {
          if (isStatus(err, 404)) return {}; // the organization or database itself is gone
          throw worded(explainFailure(`reading ${def.label(stored)}`, err));
        }
      }),

    update: (run, id, olds, news) =>
      withResource(run, resource(run, id, urnOf(olds) ?? urnFor(run, news, labelOf(news))), async () => {
        const state = stateOf(olds);
        const inputs = inputsOf(news);
        // Nothing to write: the outputs stay as they were, appliedAt included.
        if (!def.update) return { outs: { ...outputsOf(state), ...keptApplied(olds) } };
        const update = def.update;
        try {
          const result = await perform(run, `updating ${def.label(inputs)}`, (op) => update(state, inputs, op), {
            appliedAt: appliedAtOf(olds),
          });
          return { outs: resultOutputs(run, result, olds) };
        } catch (err) {
          if (!(err instanceof PartialUpdate)) throw err;
          // Reported like a partial create: the engine stores these outputs and fails the step.
          const done = err.state as S;
          const outs = resultOutputs(run, err.wrote ? done : new Unwritten(done), olds);
          const properties = { ...outs, __provider: (news as Record<string, unknown>).__provider };
          throw Object.assign(err, { id, properties, reasons: [err.message] });
        }
      }),

    delete: (run, id, props) =>
      withResource(run, resource(run, id, urnFor(run, props, labelOf(props))), async () => {
        const state = stateOf(props);
        const action = `deleting ${def.label(state)}`;
        const holder = def.holds ? run.claims.holderOf(def.holds(state)) : undefined;
        if (holder) {
          say.info(`${action}: handed over to ${holder}, which this program now declares; nothing was removed`);
          return;
        }
        try {
          await def.delete(state, operation(run, action));
        } catch (err) {
          if (isStatus(err, 404)) return; // already gone: deleted is what was asked
          throw worded(explainFailure(action, err));
        }
      }),
  };
}

/**
 * Compile-time check that a class's Args interface and its inputs schema name the same fields:
 * `argsMatch<OrgMemberArgs, z.input<typeof Inputs>>(true)` fails to compile when one has a field
 * the other lacks.
 */
export function argsMatch<A, I>(
  _ok: [Exclude<keyof A, keyof I>, Exclude<keyof I, keyof A>] extends [never, never]
    ? true
    : { onlyInArgs: Exclude<keyof A, keyof I>; onlyInSchema: Exclude<keyof I, keyof A> },
): void {}

/**
 * Compile-time check that a state interface carries every field of the checked inputs, each of a
 * type the inputs accept: what `interface XState extends Inputs` said, written out so that the
 * published declarations stay free of zod. `stateHolds<DatasetState, Inputs>(true)` fails to
 * compile when the schema gains a field the state lacks, or a field's types drift apart.
 */
export function stateHolds<S, I>(
  _ok: [Exclude<keyof I, keyof S>] extends [never]
    ? [S] extends [I]
      ? true
      : { notAcceptedByInputs: { [K in keyof I & keyof S]: [S[K]] extends [I[K]] ? never : K }[keyof I & keyof S] }
    : { missingInState: Exclude<keyof I, keyof S> },
): void {}

/** The fields of `S` an outputs list `O` leaves out. */
type MissingOutputs<S, O extends readonly unknown[]> = Exclude<keyof S & string, O[number]>;

declare const namesAllOf: unique symbol;

/** An outputs list that names every field of the state `S` and nothing else: what `outputsMatch` returns. */
export type OutputList<S> = readonly (keyof S & string)[] & { readonly [namesAllOf]: (state: S) => void };

/**
 * Compile-time check that a resource's outputs list names every field of its state, the twin of
 * argsMatch: `outputs: outputsMatch<OrgMemberState>()(["organizationId", ...])` fails to compile
 * when a State field is missing (the class would declare an `Output` for it that is `undefined`
 * at run time) or a name is not a State field. defineResource takes only a list made here.
 */
export function outputsMatch<S>() {
  return <const O extends readonly (keyof S & string)[]>(
    outputs: O & ([MissingOutputs<S, O>] extends [never] ? unknown : { missingFromOutputs: MissingOutputs<S, O> }),
  ): OutputList<S> => outputs as unknown as OutputList<S>;
}
