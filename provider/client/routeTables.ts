/**
 * The route table a client uses: the built-in one, or the one of the vendor's OpenAPI document
 * (contract/openapi.ts), read once per process per file so every client, resource and data
 * source of a run shares one reading and one verdict.
 */
import * as path from "node:path";
import { OpenApiError, routeTableFromOpenApi } from "../../contract/openapi";
import { BUILT_IN_ROUTES, type RouteTable } from "../../contract/routing";

/** Readings by absolute path: the table, or why the document cannot be used. */
// eslint-disable-next-line no-restricted-syntax -- process-wide: a document is read once; one entry per OpenAPI file named in settings.
const tables = new Map<string, RouteTable | OpenApiError>();

/**
 * The route table of the OpenAPI document at `file` (relative to the current directory), or the
 * built-in table when `file` is undefined. Read once per process: a later call gets the same table,
 * or throws the same OpenApiError naming every operation the document cannot serve.
 */
export function routeTableFor(file: string | undefined): RouteTable {
  if (file === undefined) return BUILT_IN_ROUTES;
  const absolute = path.resolve(file);
  let entry = tables.get(absolute);
  if (entry === undefined) {
    try {
      entry = routeTableFromOpenApi(absolute);
    } catch (err) {
      if (!(err instanceof OpenApiError)) throw err;
      entry = err;
    }
    tables.set(absolute, entry);
  }
  if (entry instanceof OpenApiError) throw entry;
  return entry;
}
