/**
 * What every control handler file shares: the running emulator a control request may act on, the
 * context and answer of a handler, the row of the route list, and the body parser. The control API
 * is described in index.ts.
 */
import type { z } from "zod";
import { params as rules, parseOrThrow } from "../../contract";
import type { RouteTable } from "../../contract/routing";
import type { ScaleOptions } from "../model/seed";
import type { Store } from "../model/store";
import type { RequestRecord, Traffic } from "../traffic";

/** What the control API (and the server) need of a running emulator. */
export interface ControlRuntime {
  store: Store;
  traffic: Traffic;
  /** The routes the API is served on: the built-in ones, or those of an OpenAPI document. */
  routes: RouteTable;
  /** The URL the emulator listens on. */
  baseUrl(): string;
  /** Replaces the world with a fresh seeded one (or an empty one); returns the named keys. */
  reseed(seed?: number | "empty", scale?: ScaleOptions): Record<string, string>;
  /** Saves the world to the state file, if any (debounced). */
  persist(): void;
  /** When set, every control request but the health check must carry it (header X-Emulator-Token). */
  controlToken?: string;
  /** Called once per finished request, control requests included (the command line's log lines). */
  onRequest?(entry: RequestRecord): void;
  /** performance.now() when the emulator started, for the health check's uptime. */
  startedAt: number;
}

/** Everything a control handler may read about one request. */
export interface ControlContext {
  runtime: ControlRuntime;
  store: Store;
  /** Path parameters: ids by the API's rule (numbers), a key as its text. */
  params: Record<string, number | string>;
  /** The JSON body, undefined when there is none. */
  body: unknown;
  url: URL;
}

/** What a control handler answers: the server wraps `data` in `{data}`; no data is an empty body. */
export interface ControlResult {
  /** HTTP status, 200 when left out. */
  status?: number;
  data?: unknown;
  headers?: Record<string, string>;
}

/** Answers one control request; refuses by throwing the emulator's named errors. */
export type ControlHandler = (ctx: ControlContext) => ControlResult | Promise<ControlResult>;

/** One control route: method, path template, what it does (GET /_emulator lists it), handler. */
export interface ControlRoute {
  method: string;
  path: string;
  summary: string;
  handler: ControlHandler;
}

// The API's id rule: a number, or plain decimal digits (never "0x66" read as 102).
export const id = rules.id;

/** The body parsed by `schema`; a body that breaks it is a 400 naming the field. */
export function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  return parseOrThrow(schema, body ?? {}, "control", "body");
}
