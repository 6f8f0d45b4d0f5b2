/**
 * What a resource says during a run. Inside an operation (lifecycle.ts runs each one with
 * `withResource`), a message is attached to that resource: under the engine it is shown beside the
 * resource in the preview and listed under it in the Diagnostics, with its real severity, and
 * progress is ephemeral (shown while it runs, not repeated in the Diagnostics). Without an engine
 * connection or a URN (the test harness, an unexpected plugin) it is printed as `pulumi.log`
 * prints it, progress included: "info: [runtime] ..." on the plugin's stdout, which the engine shows on the stack.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as pulumiLog from "@pulumi/pulumi/log";
import { engineLog, SEVERITY } from "../../pluginHost";

const current = new AsyncLocalStorage<string | undefined>();
/** Messages leave in order, one at a time (as the SDK's own log does). */
let queue: Promise<void> = Promise.resolve();
/** Cleared when the engine stops answering: the rest goes to stdout. */
let engineAnswers = true;

type Level = "info" | "warning";

function send(level: Level, message: string, ephemeral: boolean): Promise<void> {
  const urn = current.getStore();
  const log = engineLog();
  const fallback = () => void (level === "info" ? pulumiLog.info(message) : pulumiLog.warn(message));
  if (!log || !urn || !engineAnswers) {
    fallback();
    return Promise.resolve();
  }
  queue = queue.then(() =>
    log(SEVERITY[level], message, urn, ephemeral).catch(() => {
      engineAnswers = false;
      fallback();
    }),
  );
  return queue;
}

/** The resource's messages: `say.info(...)`, `say.warn(...)`, `say.progress(...)`. */
export const say = {
  /** A message the user should read in the run's output. */
  info: (message: string) => void send("info", message, false),
  /** Something the user should act on (drift, a person waiting for a decision, an end date near). */
  warn: (message: string) => void send("warning", message, false),
  /** How far a long operation is: shown while it runs, not kept in the Diagnostics. */
  progress: (message: string) => void send("info", message, true),
};

/**
 * Runs one operation of the resource `urn` (undefined: unknown), so that what it says is attached
 * to it; returns once its messages have reached the engine, before the engine hears the result.
 */
export async function withResource<T>(urn: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await current.run(urn, fn);
  } finally {
    await queue;
  }
}
