/**
 * How many of the engine's calls (check, diff, create, read, update, delete) this plugin process is
 * running now. The E19 batcher (orgPeople.ts) reads it: when every call in flight is an add waiting
 * in a batch, no other add can join (each holds one of the engine's workers, and the engine starts
 * no step without a free one), so waiting longer only holds the workers; the batch goes at once.
 */
let running = 0;

/** Runs one engine call, counted while it runs. */
export async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await fn();
  } finally {
    running--;
  }
}

/** The engine calls running now. */
export const engineCallsRunning = (): number => running;
