/**
 * The shape of one route-table row, without zod: routing, the emulator's public declarations and
 * the OpenAPI reader name RouteDef, and a published declaration may not import zod (see
 * types.ts). The rows themselves (routes.ts) hold zod schemas, which fit `Schema`.
 */

/** How a successful body wraps its data. `none`: the success body is not shown by the spec. */
export type Envelope = "single" | "list" | "none";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a list is read: `list` pages with `after`/`limit` and `links.next`; `events` is the
 * events shape `{data: {events: [...]}}`, whose `links` may be absent; `none` is not a list.
 */
export type Pages = "list" | "events" | "none";

/** What a route needs of a schema: zod's safeParse, reduced to the parts read here. */
export interface Schema {
  safeParse(
    value: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** One operation of the API. */
export interface RouteDef {
  /** The contract's number: E1..E30, up1..up5. */
  readonly id: string;
  /** The operation id (GetDatabases, ...), also the key of `routes`. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template relative to the base URL; `{name}` segments are path parameters. */
  readonly path: string;
  /** Path and query parameters together (a zod object); names in `path` are path parameters, the rest query. */
  readonly params: Schema;
  /** JSON body schema, or "multipart" for E5's CSV upload. */
  readonly body?: Schema | "multipart";
  /** Schema of the `data` member of a successful response. */
  readonly data: Schema;
  readonly envelope: Envelope;
  /** How its items are read (see Pages). */
  readonly pages: Pages;
  /**
   * The largest `limit` a paged route takes (from its limit parameter): the client asks for it
   * when the caller gives no limit, so a list is read in the fewest requests.
   */
  readonly largestPage?: number;
  /** Safe to repeat after a 5xx or a dropped connection. */
  readonly idempotent: boolean;
  /** One line for humans: what the operation does. */
  readonly summary: string;
  /**
   * Who may call it, from the spec's Access column, worded to follow "needs": the emulator's 403
   * and the provider's hints both quote it. `{orgId}`, `{databaseId}` and `{directoryId}` are
   * filled in by accessText().
   */
  readonly access: string;
  /** The body of a 404: `{title, status}` unless the spec's sample shows `{message, status}` (E13, E20, E24). */
  readonly notFoundBody?: "message";
}
