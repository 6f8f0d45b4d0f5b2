/**
 * The error of a parameter that breaks a rule of the spec. Its own module, free of zod, because it
 * is public (thrown by the client, exported by the package) and published declarations must not
 * import zod (see contract/types.ts).
 */

/** One parameter broke one rule. Thrown by the client before sending, and mapped to 400 by the emulator. */
export class ParameterError extends Error {
  override readonly name = "ParameterError";
  constructor(
    /** The parameter's name, e.g. `limit` or `body.users.0.email`. */
    readonly parameter: string,
    /** The rule it broke, e.g. `must be an integer from 1 to 200`. */
    readonly rule: string,
    /** The operation id, when known. */
    readonly operationId?: string,
  ) {
    super(`${operationId ? operationId + ": " : ""}invalid parameter '${parameter}': ${rule}`);
  }
}
