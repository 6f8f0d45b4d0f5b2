/**
 * The engine's step vocabulary (what the engine stack reports, what the ResourceDriver takes) and
 * its rules around the Check and Create calls, as the ResourceDriver follows them.
 */
import {
  PluginError,
  type CheckFailure,
  type CheckResult,
  type CreateResult,
  type DiffResult,
  type ReadResult,
  type UpdateResult,
} from "./pluginDriver";
import type { Props } from "./wire";

/**
 * The provider calls the engine makes for one resource, as the ResourceDriver makes them: what the
 * real plugin's gRPC client (pluginDriver.ts `Plugin`) answers, and what a test's in-process
 * driver answers by calling the provider's code directly (test/support/inProcessPlugin.ts).
 */
export interface ProviderCalls {
  urn(type: string, name: string): string;
  check(urn: string, olds: Props, news: Props): Promise<CheckResult>;
  diff(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<DiffResult>;
  create(urn: string, inputs: Props, opts?: { preview?: boolean }): Promise<CreateResult>;
  read(id: string, urn: string, props: Props, inputs?: Props): Promise<ReadResult>;
  update(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<UpdateResult>;
  delete(id: string, urn: string, props: Props, oldInputs?: Props): Promise<void>;
}

/** What a run did (or, in preview, would do) to one resource, in the CLI's words. */
export type StepOp =
  "create" | "update" | "replace" | "same" | "delete" | "read" | "import" | "refresh-changed" | "refresh-gone" | "refresh-same";

/** Check failures, which the engine reports as a failed step. */
export class CheckFailedError extends Error {
  constructor(
    urn: string,
    /** The failures the provider returned. */
    readonly failures: CheckFailure[],
  ) {
    super(`${urn}: check failed: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    this.name = "CheckFailedError";
  }
}

/** Check RPC as a step: any failure throws {@link CheckFailedError}. */
export async function checkStep(plugin: ProviderCalls, urn: string, olds: Props, news: Props): Promise<CheckResult> {
  const res = await plugin.check(urn, olds, news);
  if (res.failures.length > 0) throw new CheckFailedError(urn, res.failures);
  return res;
}

/**
 * Create RPC as a step: an empty id is an error, and a partial failure (the provider threw an
 * error carrying an id) is passed to `recordPartial` before it is rethrown, because the engine
 * keeps the half-created resource in state and then fails the step.
 */
export async function createStep(
  plugin: ProviderCalls,
  urn: string,
  inputs: Props,
  recordPartial: (id: string, outputs: Props) => void,
): Promise<CreateResult> {
  let created: CreateResult;
  try {
    created = await plugin.create(urn, inputs);
  } catch (e) {
    if (e instanceof PluginError && e.initFailure?.id) recordPartial(e.initFailure.id, e.initFailure.properties);
    throw e;
  }
  if (!created.id) throw new Error(`${urn}: provider did not return an ID from Create`);
  return created;
}
