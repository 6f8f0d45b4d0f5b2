/**
 * What a resource says during a run. Inside an operation (lifecycle.ts runs each one with
 * `withResource`, naming the run and the resource), a message goes to the run's sink (run.ts)
 * attached to that resource. Under the engine (`engineSink`) it is shown beside the resource in the
 * preview and listed under it in the Diagnostics, with its real severity, and progress is
 * ephemeral (shown while it runs, not repeated in the Diagnostics). Without an engine connection
 * or a URN (an unexpected plugin) it is printed as `pulumi.log` prints it, progress included:
 * "info: [runtime] ..." on the plugin's stdout, which the engine shows on the stack.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as pulumiLog from "@pulumi/pulumi/log";
import { engineLog, SEVERITY } from "../../pluginHost";
import type { MessageSink, Run } from "./run";

/** The operation a message belongs to: its run, the resource's URN when known, and its last message sent (the sink delivers in order). */
interface Speaker {
  run: Run;
  urn: string | undefined;
  sent?: Promise<void>;
}

// The async context of each operation, entered by withResource: how `say` finds its run and
// resource without every helper passing them on.
const current = new AsyncLocalStorage<Speaker>();

type Level = "info" | "warning";

/** Prints as `pulumi.log` does outside an engine: info on stdout, warnings on stderr. */
function printed(level: Level, message: string): Promise<void> {
  void (level === "info" ? pulumiLog.info(message) : pulumiLog.warn(message));
  return Promise.resolve();
}

/**
 * The sink of a run served to the engine (both faces make one per run): messages reach the
 * engine's Log service in order, one at a time (as the SDK's own log does), attached to their
 * resource; without a URN, or once the engine stops answering, they are printed instead.
 */
export function engineSink(): MessageSink {
  let queue: Promise<void> = Promise.resolve();
  let engineAnswers = true;
  return {
    send(level, message, urn, ephemeral) {
      const log = engineLog();
      if (!log || !urn || !engineAnswers) return printed(level, message);
      queue = queue.then(() =>
        log(SEVERITY[level], message, urn, ephemeral).catch(() => {
          engineAnswers = false;
          return printed(level, message);
        }),
      );
      return queue;
    },
  };
}

function send(level: Level, message: string, ephemeral: boolean): void {
  const speaker = current.getStore();
  const sink = speaker?.run.messages;
  if (!sink) return void printed(level, message);
  speaker.sent = sink.send(level, message, speaker.urn, ephemeral);
}

/** The resource's messages: `say.info(...)`, `say.warn(...)`, `say.progress(...)`. */
export const say = {
  /** A message the user should read in the run's output. */
  info: (message: string) => send("info", message, false),
  /** Something the user should act on (drift, a person waiting for a decision, an end date near). */
  warn: (message: string) => send("warning", message, false),
  /** How far a long operation is: shown while it runs, not kept in the Diagnostics. */
  progress: (message: string) => send("info", message, true),
};

/**
 * Runs one operation of the resource `urn` (undefined: unknown) in `run`, so that what it says
 * goes to the run's sink attached to the resource; returns once its messages have been delivered,
 * before the engine hears the result.
 */
export async function withResource<T>(run: Run, urn: string | undefined, fn: () => Promise<T>): Promise<T> {
  const speaker: Speaker = { run, urn };
  try {
    return await current.run(speaker, fn);
  } finally {
    await speaker.sent;
  }
}
