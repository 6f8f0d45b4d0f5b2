/**
 * The contract between the emulator's HTTP adapter and its handlers. Handlers are plain
 * functions from a parsed request to `{status, data}`; they never write to the socket. Errors
 * are thrown as `EmulatorError` (see errors.ts) and turned into the one error shape in one place.
 */
import type { IncomingMessage } from "node:http";
import type { RouteDef } from "../../contract/routeDef";
import type { RouteTable } from "../../contract/routing";
import type { OperationId } from "../../contract/types";
import type { Caller } from "../model/records";
import type { Store } from "../model/store";

/** What a handler returns; the adapter wraps `data` in the route's envelope. */
export interface HandlerResult {
  /** HTTP status, 200 when left out. */
  status?: number;
  /** The `data` member of the body (list routes: the page's items). */
  data?: unknown;
  /** List routes: the full URL of the next page, or null on the last page. */
  next?: string | null;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Everything a handler may read about one request. */
export interface HandlerContext {
  route: RouteDef;
  /** The routes the emulator serves, for links it writes (links.next). */
  routes: RouteTable;
  /** Path and query parameters, parsed and coerced by the route's schema (each handler knows its route's). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  params: Record<string, any>;
  /** JSON body parsed by the route's body schema (undefined for GET and multipart). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Raw request body bytes (multipart routes only; up to 200 MB). */
  rawBody?: Buffer;
  req: IncomingMessage;
  /** The authenticated caller. */
  caller: Caller;
  /** The emulator's whole state. */
  store: Store;
  /** Base URL the emulator is served on (for links.next and part URLs), no trailing slash. */
  baseUrl: string;
  /** The request URL as received. */
  url: URL;
}

/** Answers one routed, authenticated, validated request with `{status, data}`; refuses by throwing the errors of ../errors.ts. */
export type Handler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;

/** The handlers of one file, keyed by operation id; each group is written `{...} satisfies HandlerGroup` so its keys stay known to handlers/index.ts. */
export type HandlerGroup = Partial<Record<OperationId, Handler>>;
