/**
 * Starts the emulator: a faithful local copy of the admin API on loopback, with a seeded world
 * and a control API under /_emulator/. Every test, example, demo and benchmark starts it here:
 *
 *   const emu = await startEmulator();
 *   await fetch(`${emu.url}/v1/users/me`, { headers: { authorization: `Bearer ${emu.keys.orgAdmin}` } });
 *   await emu.close();
 */
// First: on an old Node, one line saying which Node is needed, before undici loads.
import "../contract/requireNode";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { routeTableFromOpenApi } from "../contract/openapi";
import { BUILT_IN_ROUTES, type RouteTable } from "../contract/routing";
import type { ControlRuntime } from "./control";
import type { ClockOption } from "./model/clock";
import type { WorldSnapshot } from "./model/records";
import { seedWorld, type ScaleOptions, applyScale } from "./model/seed";
import { Store } from "./model/store";
import { createServer } from "./server";
import { Traffic, type RequestRecord } from "./traffic";

/** A state file the emulator wrote, or an error saying the file is something else. */
function readStateFile(file: string): WorldSnapshot {
  const notOurs = (why: string) =>
    new Error(`${file} is not a state file of the emulator (${why}): name a new file, which the emulator creates, or one it wrote`);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw notOurs(`not JSON: ${(err as Error).message.split("\n")[0]}`);
  }
  const d = data as Partial<WorldSnapshot> | null;
  if (!d || typeof d !== "object" || d.version !== 1 || !Array.isArray(d.organizations) || !Array.isArray(d.keys)) {
    throw notOurs("JSON without the emulator's version, organizations and keys");
  }
  return d as WorldSnapshot;
}

// The world and its parts, for tests, demos and benchmarks that set the stage in process.
export { SEEDED, addSyntheticDatabases, addSyntheticMembers, type ScaleOptions } from "./model/seed";
export { Store } from "./model/store";
export { KEY_SHAPE } from "./model/keys";
export { OpenApiError } from "../contract/openapi";
export type { ClockOption } from "./model/clock";
export type { Caller, WorldSnapshot } from "./model/records";
export type { LogEntry, RequestRecord, Traffic } from "./traffic";
export { type UploadOptions, type UploadStore } from "./model/uploadStore";

/** Requests per second per account, as the spec says. */
export const DEFAULT_RATE_LIMIT = 25;
/** Failed authentications per second per client address: the spec only says "stricter", so a fifth. */
export const DEFAULT_AUTH_FAILURE_LIMIT = 5;

/** How startEmulator runs (every field optional): where it listens, its limits, its world and its clocks. */
export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to listen on (default 127.0.0.1). Off loopback the control API always needs a token (see controlToken). */
  host?: string;
  /**
   * Token the control API then requires (header X-Emulator-Token; /_emulator/health excepted).
   * Default: none on a loopback address, a random one otherwise (RunningEmulator.controlToken).
   */
  controlToken?: string;
  /** Called once per finished request, control requests included (the command line's log lines). */
  onRequest?: (entry: RequestRecord) => void;
  /** Requests per second per account (default 25); 0 or Infinity turns the limit off. */
  rateLimit?: number;
  /** Failed authentications per second per client address (default 5); 0 or Infinity: off. */
  authFailureLimit?: number;
  /** Seed of the world (default 1), or "empty" for a world with nothing in it. Ignored when the state file exists. */
  seed?: number | "empty";
  /** Synthetic members and databases to add to the seeded world (benchmarks). */
  scale?: ScaleOptions;
  /** JSON file the world is loaded from (when it exists) and saved to after every change and at close. */
  stateFile?: string;
  /** The emulator's clock: a start instant (then real speed) or a function returning unix ms. */
  clock?: ClockOption;
  /**
   * Milliseconds the rate limits refill by (default performance.now, real time). Tests pass a
   * clock they move by hand, to get a bucket back without waiting a second. Separate from
   * `clock`: advancing the emulator a month must not refill a bucket.
   */
  rateLimitClock?: () => number;
  /**
   * The vendor's OpenAPI 3.x document (JSON or YAML file): serve each operation on the document's
   * method and path instead of the built-in ones, as a client configured with the same document
   * sends them. A document that lacks an operation or cannot be mapped makes startEmulator throw
   * an OpenApiError naming each such operation. Default: the built-in routes.
   */
  openapi?: string;
}

/** A started emulator: its URL, keys, world and traffic controls, until close(). */
export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash); API paths start with /v1. From this machine. */
  readonly url: string;
  /** The address listened on, as given (e.g. 127.0.0.1, 0.0.0.0), and the port. */
  readonly host: string;
  readonly port: number;
  /** The token the control API requires, or undefined when it is open (loopback without a token). */
  readonly controlToken: string | undefined;
  /** The routes it serves: the built-in ones, or those of the `openapi` document (`routes.source` names it). */
  readonly routes: RouteTable;
  /** Ready keys for each role of the seeded world (orgAdmin, orgKey, parentOrgAdmin, ...); current after a reset. */
  readonly keys: Record<string, string>;
  /** The world, for in-process tests that set things up directly. */
  readonly store: Store;
  /** Rate limits, faults and the request log. */
  readonly traffic: Traffic;
  /** Replaces the world with a fresh seeded (or empty) one; returns the new named keys. */
  reset(seed?: number | "empty", scale?: ScaleOptions): Record<string, string>;
  /** Stops listening, closes connections and saves the state file. */
  close(): Promise<void>;
}

/** True for a listen address that only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackAddress(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Writes the world to `file` atomically (a crash mid-write leaves the old file). */
function saveWorld(store: Store, file: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(tmp, JSON.stringify(store.toJSON()));
  fs.renameSync(tmp, file);
}

/** Starts an emulator (on loopback unless `host` says otherwise); resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  // First: a document that cannot be used must fail before anything listens or is written.
  const routes = options.openapi === undefined ? BUILT_IN_ROUTES : routeTableFromOpenApi(options.openapi);
  const store = new Store({ clock: options.clock, seed: typeof options.seed === "number" ? options.seed : 1 });
  const traffic = new Traffic(
    options.rateLimit === 0 ? Infinity : (options.rateLimit ?? DEFAULT_RATE_LIMIT),
    options.authFailureLimit === 0 ? Infinity : (options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT),
    options.rateLimitClock,
  );

  const reset = (seed: number | "empty" = 1, scale: ScaleOptions = {}): Record<string, string> => {
    if (seed === "empty") {
      store.clear();
      applyScale(store, scale);
      return store.namedKeys;
    }
    return seedWorld(store, seed, scale);
  };

  const stateFile = options.stateFile;
  if (stateFile && fs.existsSync(stateFile)) {
    store.load(readStateFile(stateFile));
  } else {
    reset(options.seed, options.scale);
  }

  // Saving is debounced: a burst of changes (a seed, a bulk add) is written once.
  let saveTimer: NodeJS.Timeout | undefined;
  const persist = () => {
    if (!stateFile || saveTimer) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      saveWorld(store, stateFile);
    }, 50);
  };
  store.onChange(persist);
  if (stateFile) saveWorld(store, stateFile);

  const listenHost = options.host ?? "127.0.0.1";
  // Off loopback the control API (which hands out every key) is never open.
  const controlToken = options.controlToken ?? (isLoopbackAddress(listenHost) ? undefined : randomBytes(24).toString("base64url"));
  let baseUrl = "";
  const runtime: ControlRuntime = {
    store,
    traffic,
    routes,
    baseUrl: () => baseUrl,
    reseed: reset,
    persist,
    controlToken,
    onRequest: options.onRequest,
    startedAt: performance.now(),
  };
  const server = createServer(runtime);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // An unspecified address (0.0.0.0, ::) listens everywhere: this machine reaches it on loopback.
  const unspecified = address.address === "0.0.0.0" || address.address === "::";
  const host = unspecified ? "127.0.0.1" : address.family === "IPv6" ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url: baseUrl,
    host: listenHost,
    port: address.port,
    controlToken,
    routes,
    get keys() {
      return store.namedKeys;
    },
    store,
    traffic,
    reset,
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await store.closeUploads();
        clearTimeout(saveTimer);
        saveTimer = undefined;
        if (stateFile) saveWorld(store, stateFile);
      })();
      return closed;
    },
  };
}
