/**
 * The control API, under /_emulator/ (never under /v1, and without a key): what tests, demos and
 * benchmarks use to set the stage and to look behind it.
 *
 * - World: reset/reseed, state dump, synthetic scale, organizations, users, databases, projects.
 * - Keys: mint a key for a user or an organization, revoke one.
 * - Time: read and advance the emulator's clock.
 * - Traffic: rate limits, faults (429/500/503, dropped connections, latency), the request log
 *   and its counters.
 * - People acting in the web UI "behind the program's back": accept or expire an invitation,
 *   invite someone, add, change and remove members, set database permissions. These call the
 *   same store methods the API handlers call, so the rules are the same.
 *
 * Every answer is `{data: ...}`; errors use the API's error shape. `GET /_emulator` lists the routes.
 *
 * One file per area (world.ts, keys.ts, clock.ts, traffic.ts, webApp.ts), each a list of routes;
 * they are routed with contract/routing.ts's PathRouter, the matcher the API's RouteTable uses.
 */
import { parseOrThrow } from "../../contract";
import { PathRouter } from "../../contract/routing";
import { BadRequest, MethodNotAllowed, NotFound } from "../errors";
import { clockRoutes } from "./clock";
import { keyRoutes } from "./keys";
import { trafficRoutes } from "./traffic";
import { id, type ControlResult, type ControlRoute, type ControlRuntime } from "./types";
import { webAppRoutes } from "./webApp";
import { worldRoutes } from "./world";

export type { ControlContext, ControlHandler, ControlResult, ControlRoute, ControlRuntime } from "./types";

/** Control routes: method, path template, what it does, handler; GET /_emulator lists them in this order. */
const controlRoutes: ControlRoute[] = [
  {
    method: "GET",
    path: "/_emulator",
    summary: "This list, the URL and the named keys",
    handler: ({ runtime, store }) => ({
      data: {
        url: runtime.baseUrl(),
        keys: store.namedKeys,
        routes: controlRoutes.map(({ method, path, summary }) => ({ method, path, summary })),
      },
    }),
  },
  {
    method: "GET",
    path: "/_emulator/health",
    summary: 'Liveness, without the control token: {status: "ok", uptimeSeconds, controlTokenRequired}',
    handler: ({ runtime }) => ({
      data: {
        status: "ok",
        uptimeSeconds: Math.round((performance.now() - runtime.startedAt) / 100) / 10,
        controlTokenRequired: runtime.controlToken !== undefined,
      },
    }),
  },

  ...worldRoutes,
  ...keyRoutes,
  ...clockRoutes,
  ...trafficRoutes,
  ...webAppRoutes,
];

const router = new PathRouter(controlRoutes);

/** Answers one control request. Id path parameters come back as numbers (400 when not an id). */
export async function handleControl(runtime: ControlRuntime, method: string, url: URL, rawBody: Buffer): Promise<ControlResult> {
  const matched = router.match(method, url.pathname);
  if (!matched) {
    if (router.pathIsKnown(url.pathname)) throw new MethodNotAllowed(`Method ${method} is not allowed on ${url.pathname}`);
    throw new NotFound("control route", url.pathname);
  }
  const params: Record<string, number | string> = {};
  for (const [n, v] of Object.entries(matched.pathParams)) {
    // Every control path parameter but a key is an id, read by the API's rule.
    params[n] = n === "key" ? v : parseOrThrow(id, v, "control", n);
  }
  let body: unknown;
  if (rawBody.length > 0) {
    try {
      body = JSON.parse(rawBody.toString("utf8"));
    } catch {
      throw new BadRequest("body", "must be valid JSON");
    }
  }
  return matched.route.handler({ runtime, store: runtime.store, params, body, url });
}
