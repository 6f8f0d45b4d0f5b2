/**
 * Drives one dynamic resource through the plugin (or an in-process stand-in for it: ProviderCalls)
 * with the engine's step sequence, keeping its state between calls, for tests of a single
 * resource kind without a program.
 */
import type { CheckResult, DiffResult } from "./pluginDriver";
import { checkStep, createStep, type ProviderCalls, type StepOp } from "./engineSteps";
import { clean, deepEqual, PROVIDER_KEY, type Props } from "./wire";

/** What the driver remembers about a created resource, like one entry of a stack's state. */
export interface ResourceState {
  id: string;
  /** Checked inputs, `__provider` included. */
  inputs: Props;
  /** Outputs, `__provider` included. */
  outputs: Props;
}

/** The steps {@link ResourceDriver.up} and {@link ResourceDriver.preview} can take. */
export type UpOp = Extract<StepOp, "create" | "update" | "replace" | "same">;

/** The step {@link ResourceDriver.up} took, with the resulting id, outputs and checked inputs. */
export interface UpResult {
  op: UpOp;
  id: string;
  outs: Props;
  inputs: Props;
  /** The provider's diff, when the resource already existed. */
  diff?: DiffResult;
}

/** Result of {@link ResourceDriver.preview}: check and diff only, nothing applied. */
export interface PreviewResult {
  op: UpOp;
  check: CheckResult;
  diff?: DiffResult;
}

/**
 * One dynamic resource and its state: up (check → diff → create/update/replace), refresh (read),
 * destroy (delete), each as the engine would do it.
 */
export class ResourceDriver {
  /** Current state, undefined before create and after destroy (or a refresh that found it gone). */
  state: ResourceState | undefined;

  /**
   * @param type full type token, e.g. "pulumi-nodejs:dynamic/reviewadmin:OrgMember"
   * @param provider serialized provider text (see serializeProvider)
   * @param view how results show properties to the caller (a provider may store some in another
   *   form, as JSON text, say); `state` keeps them as the engine would hold them
   */
  constructor(
    readonly plugin: ProviderCalls,
    readonly type: string,
    readonly name: string,
    public provider: string,
    private readonly view: (props: Props) => Props = (props) => props,
  ) {}

  /** An up's result as the caller reads it (see `view`). */
  private shown(r: UpResult): UpResult {
    return { ...r, outs: this.view(r.outs), inputs: this.view(r.inputs) };
  }

  get urn(): string {
    return this.plugin.urn(this.type, this.name);
  }

  /** Inputs as the engine receives them from `dynamic.Resource`: a copy with `__provider` added. */
  private goal(inputs: Props): Props {
    return { ...clean(inputs), [PROVIDER_KEY]: this.provider };
  }

  /**
   * Engine diff: asks the provider; when it answers DIFF_UNKNOWN (no diff method, or
   * `changes` undefined) the engine compares old and new inputs itself, `__provider` included.
   */
  private async engineDiff(state: ResourceState, news: Props): Promise<{ diff: DiffResult; changed: boolean }> {
    const diff = await this.plugin.diff(state.id, this.urn, state.outputs, news, state.inputs);
    const changed = diff.changes ?? !deepEqual(state.inputs, news);
    return { diff, changed };
  }

  /**
   * Check and diff without applying anything (like `pulumi preview`); inputs may hold UNKNOWN.
   * Throws CheckFailedError on check failures, as `up` does.
   */
  async preview(inputs: Props): Promise<PreviewResult> {
    const news = this.goal(inputs);
    const check = await checkStep(this.plugin, this.urn, this.state?.inputs ?? {}, news);
    if (!this.state) return { op: "create", check };
    const { diff, changed } = await this.engineDiff(this.state, check.inputs);
    const op: UpOp = !changed ? "same" : diff.replaces.length > 0 ? "replace" : "update";
    return { op, check, diff };
  }

  /** Deploys `inputs` (without `__provider`): create, update, replace or nothing. */
  async up(inputs: Props): Promise<UpResult> {
    const news = this.goal(inputs);
    const old = this.state;
    const checked = await checkStep(this.plugin, this.urn, old?.inputs ?? {}, news);

    if (!old) {
      const created = await this.create(checked.inputs);
      return this.shown({ op: "create", ...created });
    }

    const { diff, changed } = await this.engineDiff(old, checked.inputs);
    if (!changed) {
      // A "same" step keeps the old outputs and records the new inputs.
      this.state = { ...old, inputs: checked.inputs };
      return this.shown({ op: "same", id: old.id, outs: old.outputs, inputs: checked.inputs, diff });
    }

    if (diff.replaces.length > 0) {
      // The engine re-checks with no olds before a replacement, so defaults are not carried over.
      const rechecked = await checkStep(this.plugin, this.urn, {}, news);
      if (diff.deleteBeforeReplace) {
        await this.plugin.delete(old.id, this.urn, old.outputs, old.inputs);
        this.state = undefined;
        const created = await this.create(rechecked.inputs);
        return this.shown({ op: "replace", ...created, diff });
      }
      const created = await this.create(rechecked.inputs);
      await this.plugin.delete(old.id, this.urn, old.outputs, old.inputs);
      return this.shown({ op: "replace", ...created, diff });
    }

    const updated = await this.plugin.update(old.id, this.urn, old.outputs, checked.inputs, old.inputs);
    this.state = { id: old.id, inputs: checked.inputs, outputs: updated.outs };
    return this.shown({ op: "update", id: old.id, outs: updated.outs, inputs: checked.inputs, diff });
  }

  private async create(inputs: Props): Promise<{ id: string; outs: Props; inputs: Props }> {
    const created = await createStep(this.plugin, this.urn, inputs, (id, outputs) => {
      this.state = { id, inputs, outputs };
    });
    this.state = { id: created.id, inputs, outputs: created.outs };
    return { ...created, inputs };
  }

  /** Refresh: reads with stored outputs and inputs; returns the new state (as `view` shows it), undefined if gone. */
  async refresh(): Promise<ResourceState | undefined> {
    if (!this.state) throw new Error(`${this.urn}: nothing to refresh`);
    const old = this.state;
    const res = await this.plugin.read(old.id, this.urn, old.outputs, old.inputs);
    if (res.id === undefined) {
      this.state = undefined;
      return undefined;
    }
    this.state = { id: res.id, outputs: res.outs, inputs: res.inputs ?? old.inputs };
    return { id: res.id, outputs: this.view(this.state.outputs), inputs: this.view(this.state.inputs) };
  }

  /** Destroy: deletes with stored outputs and forgets the state. */
  async destroy(): Promise<void> {
    if (!this.state) return;
    await this.plugin.delete(this.state.id, this.urn, this.state.outputs, this.state.inputs);
    this.state = undefined;
  }
}
