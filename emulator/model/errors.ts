/**
 * The named errors of the emulator's world (the fake-gcs-server habit: the backend says what went
 * wrong, never which status that is). The model throws them; ../errors.ts `toErrorResponse` is the
 * one place that maps them to HTTP answers, beside the errors only the HTTP layer throws.
 */

/** Base class of every error the emulator throws on purpose. */
export class EmulatorError extends Error {
  override name = "EmulatorError";
}

/** The object with the given id does not exist (404). */
export class NotFound extends EmulatorError {
  override name = "NotFound";
  constructor(
    /** What was looked for: "organization", "database user", ... */
    readonly what: string,
    /** The id or email that was looked for. */
    readonly id: string | number,
  ) {
    super(`${what} ${id} not found`);
  }
}

/** A parameter or body field broke a rule (400); the title names the parameter and the rule. */
export class BadRequest extends EmulatorError {
  override name = "BadRequest";
  constructor(
    /** The parameter's name, e.g. `limit` or `body.users.0.email`. */
    readonly parameter: string,
    /** The rule it broke, e.g. `must be an integer from 1 to 200`. */
    readonly rule: string,
  ) {
    super(`invalid parameter '${parameter}': ${rule}`);
  }
}

/** An operation-specific cap on API-created objects is hit (422); the message names the limit. */
export class Unprocessable extends EmulatorError {
  override name = "Unprocessable";
}
