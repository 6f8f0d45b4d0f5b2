/**
 * The one error a data source's failures become, worded by provider/failures.ts: a refused
 * argument, a missing client setting, or a failed read.
 */
import { accessText, BUILT_IN_ROUTES, ParameterError } from "../../contract";
import { ApiError } from "../client";
import { describeCause } from "../failures";

/**
 * A failed read, as one line: `<dataSource>: reading <what>: <cause>`, the cause worded by
 * provider/failures.ts (the service's status and title, and what to check: for a 403 the access
 * the route needs). The original error is `cause`; `status` and `operationId` are copied from
 * it when it is an ApiError.
 */
export class DataSourceError extends Error {
  override readonly name = "DataSourceError";
  /** HTTP status of the service's answer, when there was one. */
  readonly status?: number;
  /** The operation id (GetOrganizationUsers, ...) of the failed request, when known. */
  readonly operationId?: string;
  /** The data source function, e.g. `getOrganizationMembers`. */
  readonly dataSource: string;

  constructor(dataSource: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.dataSource = dataSource;
    if (cause instanceof ApiError) {
      this.status = cause.status;
      this.operationId = cause.operationId;
    } else if (cause instanceof ParameterError && cause.operationId) {
      this.operationId = cause.operationId;
    }
  }
}

/** Who may call an operation, from the route table's `access` column with the given ids filled in; undefined for an unknown operation id. */
export function requiredRole(operationId: string, ids: { organizationId?: number; databaseId?: number } = {}): string | undefined {
  const route = BUILT_IN_ROUTES.route(operationId);
  return route ? accessText(route, { orgId: ids.organizationId, databaseId: ids.databaseId }) : undefined;
}

/** Turns any failure of a read into the DataSourceError `<dataSource>: reading <what>: <cause>`. */
export function readFailure(dataSource: string, what: string, err: unknown): DataSourceError {
  if (err instanceof DataSourceError) return err;
  return new DataSourceError(dataSource, `${dataSource}: reading ${what}: ${describeCause(err)}`, err);
}

/** Runs `fn`, rethrowing any failure as readFailure(...). */
export async function reading<T>(dataSource: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw readFailure(dataSource, what, err);
  }
}

/** An argument error, thrown before anything is sent: `<dataSource>: <message>` (`cause`: the schema's error, when there is one). */
export function argumentError(dataSource: string, message: string, cause?: unknown): DataSourceError {
  return new DataSourceError(dataSource, `${dataSource}: ${message}`, cause);
}
