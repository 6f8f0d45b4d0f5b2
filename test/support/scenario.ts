/**
 * Helpers for writing a resource's lifecycle as one ordered scenario: `step` names each part, as
 * the comments of an acceptance test's steps do ("Create and Read testing", ...), so a failure
 * says which part of the scenario broke.
 */

/**
 * Runs one named step of a scenario. When it fails, the error's message starts with the step's
 * name; the error is otherwise the one thrown (an assertion keeps its expected and actual values).
 */
export async function step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Error) err.message = `step "${name}": ${err.message}`;
    throw err;
  }
}

/** The error `promise` rejects with; a failure of its own when it resolves instead. */
export function errorOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => new Error("expected a failure"),
    (e: Error) => e,
  );
}

/**
 * Options of a test made of steps: a longer time limit, as each step starts plugin processes
 * (a few seconds each on a loaded machine) and a scenario has several.
 */
export const SCENARIO = { timeout: 240_000 };

/**
 * Options of a describe block whose tests are the steps of one story, each building on the world
 * the last left (up, a second up, drift, destroy): shuffled runs (`--sequence.shuffle`) still
 * shuffle the files and every other block, but keep these steps in their written order.
 */
export const ORDERED = { shuffle: false };
