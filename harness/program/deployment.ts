/**
 * The steps of one run against the plugin, as the engine takes them: up and preview
 * (`Deployment`, fed registration by registration by the monitor), refresh and destroy.
 */
import { PluginError, type Plugin } from "../pluginDriver";
import { checkStep, createStep, type StepOp } from "../engineSteps";
import { changedKeys, toProviderInputs, toWireOutputs, type Props } from "../wire";
import type { RunPlugin } from "./plugins";
import { deleteInParallel, deletionOrder, type StateEntry, type Step } from "./state";

/** What the harness reads off a RegisterResourceRequest for a dynamic resource. */
export interface Registration {
  urn: string;
  type: string;
  name: string;
  parent?: string;
  /** Wire-format inputs (`__provider` included). */
  wire: Props;
  importId?: string;
  deleteBeforeReplace: boolean;
  protect: boolean;
  retainOnDelete: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  dependencies: string[];
}

/**
 * The steps of one up or preview: each dynamic registration the monitor hands over, then the
 * deletes of what the program no longer declares. Stops issuing steps at the first failure.
 */
export class Deployment {
  readonly steps: Step[] = [];
  readonly errors: unknown[] = [];
  /** State built by this run, in the order resources completed. */
  readonly newState = new Map<string, StateEntry>();
  readonly registered = new Set<string>();
  /** Old states superseded by a create-before-delete replacement, deleted at the end. */
  readonly replacedOld: StateEntry[] = [];
  failed = false;

  constructor(
    readonly old: Map<string, StateEntry>,
    readonly plugin: RunPlugin,
    readonly preview: boolean,
  ) {}

  fail(e: unknown): void {
    this.failed = true;
    this.errors.push(e);
  }

  private async check(p: Plugin, urn: string, olds: Props, news: Props): Promise<Props> {
    return (await checkStep(p, urn, olds, news)).inputs;
  }

  /** Handles one dynamic registration; returns the id and wire outputs for the SDK, or undefined when skipped/failed. */
  async register(r: Registration): Promise<{ id: string; outputs: Props } | undefined> {
    if (this.failed) return undefined; // the engine stops issuing steps after a failure
    try {
      if (this.registered.has(r.urn)) throw new Error(`Duplicate resource URN '${r.urn}'; try giving it a unique name`);
      this.registered.add(r.urn);
      const p = await this.plugin.get();
      const { inputs: goal, secretKeys: secretInputs } = toProviderInputs(r.wire);
      const secretKeys = [...new Set([...secretInputs, ...r.additionalSecretOutputs])];
      const old = this.old.get(r.urn);
      const base = {
        urn: r.urn,
        type: r.type,
        name: r.name,
        parent: r.parent,
        dependencies: r.dependencies,
        protect: r.protect,
        retainOnDelete: r.retainOnDelete,
        secretKeys,
      };
      const step = (op: StepOp, extra: Partial<Step> = {}) => this.steps.push({ urn: r.urn, type: r.type, name: r.name, op, ...extra });
      const done = (id: string, inputs: Props, outputs: Props) => {
        if (!this.preview) this.newState.set(r.urn, { ...base, id, inputs, outputs });
        return { id, outputs: toWireOutputs(outputs, secretKeys) };
      };

      const news = { ...goal };
      if (old) {
        // ignoreChanges (top-level keys): keep the old input value.
        for (const k of r.ignoreChanges) {
          if (k in old.inputs) news[k] = old.inputs[k];
          else delete news[k];
        }
      }

      if (!old) {
        if (r.importId) {
          // The engine's import step: Read with no state (the dynamic plugin then has no __provider).
          const read = await p.read(r.importId, r.urn, {}, {});
          if (read.id === undefined) throw new Error(`${r.urn}: resource '${r.importId}' does not exist`);
          const checked = await this.check(p, r.urn, read.inputs ?? {}, news);
          step("import", { id: read.id });
          return done(read.id, checked, read.outs);
        }
        const checked = await this.check(p, r.urn, {}, news);
        if (this.preview) {
          step("create");
          return { id: "", outputs: toWireOutputs(checked, secretKeys) };
        }
        const created = await this.create(p, r.urn, checked, base);
        step("create", { id: created.id });
        return done(created.id, checked, created.outs);
      }

      const checked = await this.check(p, r.urn, old.inputs, news);
      const diff = await p.diff(old.id, r.urn, old.outputs, checked, old.inputs);
      const inputChanges = changedKeys(old.inputs, checked);
      // DIFF_UNKNOWN: the engine compares the inputs itself (`__provider` included).
      const changed = diff.changes ?? inputChanges.length > 0;
      let replace = changed && diff.replaces.length > 0;
      if (changed && r.replaceOnChanges.some((k) => k === "*" || inputChanges.includes(k))) replace = true;
      const keys = diff.diffs.length > 0 ? diff.diffs : inputChanges;

      if (!changed) {
        step("same", { id: old.id, diff });
        // A "same" step records the new inputs and keeps the old outputs.
        return done(old.id, checked, old.outputs);
      }
      if (!replace) {
        step("update", { id: old.id, diff, changedKeys: keys });
        if (this.preview) return { id: old.id, outputs: toWireOutputs({ ...old.outputs, ...checked }, secretKeys) };
        let updated;
        try {
          updated = await p.update(old.id, r.urn, old.outputs, checked, old.inputs);
        } catch (e) {
          // Partial failure: the engine stores the outputs the provider reported.
          if (e instanceof PluginError && e.initFailure) {
            this.newState.set(r.urn, { ...base, id: old.id, inputs: checked, outputs: e.initFailure.properties });
          }
          throw e;
        }
        return done(old.id, checked, updated.outs);
      }

      // Replacement: the engine re-checks with no olds, so defaults are recomputed.
      if (old.protect) throw new Error(`${r.urn}: resource is protected; cannot replace it`);
      const rechecked = await this.check(p, r.urn, {}, news);
      if (this.preview) {
        step("replace", { id: old.id, diff, changedKeys: keys });
        return { id: "", outputs: toWireOutputs(rechecked, secretKeys) };
      }
      const deleteFirst = diff.deleteBeforeReplace || r.deleteBeforeReplace;
      if (deleteFirst) {
        if (!old.retainOnDelete) await p.delete(old.id, r.urn, old.outputs, old.inputs);
        this.old.delete(r.urn); // gone: a later failure must not keep it
      }
      const created = await this.create(p, r.urn, rechecked, base);
      // Create-before-delete: the old one is deleted at the end of the run, like the engine's
      // delete-replaced steps.
      if (!deleteFirst) this.replacedOld.push(old);
      step("replace", { id: created.id, diff, changedKeys: keys });
      return done(created.id, rechecked, created.outs);
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** Create; a partial failure (error with id) is recorded in state, as the engine does. */
  private create(p: Plugin, urn: string, inputs: Props, base: Omit<StateEntry, "id" | "inputs" | "outputs">) {
    return createStep(p, urn, inputs, (id, outputs) => this.newState.set(urn, { ...base, id, inputs, outputs }));
  }

  /** `Resource.get`-style read of a dynamic resource (not managed: not stored in state). */
  async read(urn: string, type: string, name: string, id: string, wire: Props): Promise<Props | undefined> {
    if (this.failed) return undefined;
    try {
      const p = await this.plugin.get();
      const { inputs } = toProviderInputs(wire);
      const res = await p.read(id, urn, inputs, inputs);
      if (res.id === undefined) throw new Error(`${urn}: resource '${id}' does not exist`);
      this.steps.push({ urn, type, name, op: "read", id: res.id });
      return res.outs;
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** After the program: delete what was not registered (and replaced olds), in reverse order. */
  async finish(): Promise<void> {
    const gone = deletionOrder([...this.old.values()].filter((s) => !this.registered.has(s.urn)));
    if (this.preview) {
      for (const s of gone) this.steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
      return;
    }
    if (this.replacedOld.length > 0) {
      // Superseded by their replacements: deleted even when the run failed.
      const p = await this.plugin.get();
      for (const s of [...this.replacedOld].reverse()) {
        try {
          if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
        } catch (e) {
          this.fail(e);
        }
      }
    }
    if (this.failed) return;
    if (gone.length === 0) return;
    const p = await this.plugin.get();
    try {
      await deleteInParallel(gone, async (s) => {
        if (s.protect) throw new Error(`${s.urn}: resource is protected; cannot delete it`);
        if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
        this.old.delete(s.urn);
        this.steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
      });
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * The state after the run: existing resources keep their position (new values if the run
   * stepped them, old ones if it failed before), new resources follow in completion order.
   */
  resultState(): Map<string, StateEntry> {
    const out = new Map<string, StateEntry>();
    for (const [urn, s] of this.old) out.set(urn, this.newState.get(urn) ?? s);
    for (const [urn, s] of this.newState) if (!out.has(urn)) out.set(urn, s);
    return out;
  }
}

/** Steps and errors of a refresh or destroy. */
export interface RunSteps {
  steps: Step[];
  errors: unknown[];
}

/**
 * Refresh: reads every resource of `state` in parallel, as the engine does, and updates `state`
 * in place (a resource reported gone is dropped).
 */
export function refreshAll(plugin: RunPlugin, state: Map<string, StateEntry>): Promise<RunSteps> {
  return overState(plugin, state, async (p, entries, { steps, errors }) => {
    const results = await Promise.allSettled(entries.map((s) => p.read(s.id, s.urn, s.outputs, s.inputs)));
    results.forEach((r, i) => {
      const s = entries[i]!;
      const base = { urn: s.urn, type: s.type, name: s.name };
      if (r.status === "rejected") {
        errors.push(r.reason);
        return;
      }
      const res = r.value;
      if (res.id === undefined) {
        state.delete(s.urn);
        steps.push({ ...base, op: "refresh-gone", id: s.id });
        return;
      }
      const inputs = res.inputs ?? s.inputs;
      const keys = changedKeys(s.outputs, res.outs);
      // Like the CLI's refresh display: a change is a change of the outputs (or id).
      const changed = keys.length > 0 || res.id !== s.id;
      state.set(s.urn, { ...s, id: res.id, outputs: res.outs, inputs });
      steps.push({
        ...base,
        op: changed ? "refresh-changed" : "refresh-same",
        id: res.id,
        changedKeys: keys,
        changedInputKeys: changedKeys(s.inputs, inputs),
      });
    });
  });
}

/** Destroy: deletes every resource of `state`, dependents first and the rest in parallel (deleteInParallel), stopping at the first failure. */
export function destroyAll(plugin: RunPlugin, state: Map<string, StateEntry>): Promise<RunSteps> {
  return overState(plugin, state, async (p, entries, { steps }) => {
    await deleteInParallel(entries, async (s) => {
      if (s.protect) throw new Error(`${s.urn}: resource is protected; cannot delete it`);
      if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
      state.delete(s.urn);
      steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
    });
  });
}

/** Runs `body` over the state's entries with the run's plugin (not started for an empty state); a throw becomes an error of the run. */
async function overState(
  plugin: RunPlugin,
  state: Map<string, StateEntry>,
  body: (p: Plugin, entries: StateEntry[], run: RunSteps) => Promise<void>,
): Promise<RunSteps> {
  const run: RunSteps = { steps: [], errors: [] };
  const entries = [...state.values()];
  if (entries.length === 0) return run;
  try {
    await body(await plugin.get(), entries, run);
  } catch (e) {
    run.errors.push(e);
  }
  return run;
}
