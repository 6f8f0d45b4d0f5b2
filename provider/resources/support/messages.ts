/**
 * What a resource says during a run. Inside an operation (lifecycle.ts runs each one with
 * `withResource`, naming the run and the resource), a message goes to the run's sink (run.ts)
 * attached to that resource. Under the engine (`engineSink`) it is shown beside the resource in the
 * preview and listed under it in the Diagnostics, with its real severity, and progress is
 * ephemeral (shown while it runs, not repeated in the Diagnostics). A message of an operation
 * whose URN a later request will name (a refresh's first Read in a plugin process: pluginHost.ts)
 * is held until then (heldMessages.ts). Without an engine connection or a URN (an unexpected
 * plugin) it is printed as `pulumi.log` prints it, progress included: "info: [runtime] ..." on the
 * plugin's stdout, which the engine shows on the stack.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as pulumiLog from "@pulumi/pulumi/log";
import { engineLog, SEVERITY } from "../../pluginHost";
import type { MessageSink, Run, Said } from "./run";

/**
 * The operation a message belongs to: its run, the resource's URN when known, its last message
 * sent (the sink delivers in order), and what it said while its URN is still to come.
 */
interface Speaker {
  run: Run;
  urn: string | undefined;
  sent?: Promise<void>;
  held?: Said[];
}

/**
 * The resource an operation is about: its URN (undefined: unknown), and for messages held until
 * the URN is known its `key` (`<kind> <id>`) and whether a later request will name the URN
 * (`named(result)`: a refresh's Read that found the resource, which the engine diffs next).
 */
export interface ResourceOf<T> {
  urn: string | undefined;
  key: string;
  named?: (result: T) => boolean;
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
  if (speaker.held) return void speaker.held.push({ level, message, ephemeral });
  speaker.sent = sink.send(level, message, speaker.urn, ephemeral);
}

/** Sends `said` to the run's sink for `urn` (undefined: printed), after what the speaker sent. */
function sendAll(speaker: Speaker, sink: MessageSink, said: Said[], urn: string | undefined): void {
  for (const m of said) speaker.sent = sink.send(m.level, m.message, urn, m.ephemeral);
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
 * Runs one operation of the resource `about` (its URN, undefined when unknown, or a ResourceOf) in
 * `run`, so that what it says goes to the run's sink attached to the resource; returns once its
 * messages have been delivered, before the engine hears the result. Of a ResourceOf, what earlier
 * operations held goes first once the URN is known; while it is not, what this operation says is
 * held for the request that will name it (`named`), or printed as it ends when none will.
 */
export async function withResource<T>(run: Run, about: string | undefined | ResourceOf<T>, fn: () => Promise<T>): Promise<T> {
  const resource = typeof about === "object" ? about : undefined;
  const urn = typeof about === "object" ? about.urn : about;
  const speaker: Speaker = { run, urn };
  const sink = run.messages;
  if (sink && resource) {
    if (urn) sendAll(speaker, sink, run.held.take(resource.key), urn);
    else if (resource.named) speaker.held = [];
  }
  let done: { result: T } | undefined;
  try {
    done = { result: await current.run(speaker, fn) };
    return done.result;
  } finally {
    const said = speaker.held ?? [];
    // Anything said after the operation ends is sent as it comes.
    speaker.held = undefined;
    if (sink && said.length) {
      // Held past the operation: its result does not wait for the request that names the URN.
      if (done && resource?.named?.(done.result)) run.held.hold(resource.key, said, (late) => sendAll({ run, urn }, sink, late, undefined));
      else sendAll(speaker, sink, said, undefined);
    }
    await speaker.sent;
  }
}
