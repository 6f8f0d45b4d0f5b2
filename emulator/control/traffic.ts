/**
 * Control routes for what happens to API traffic: the rate limits, the request log and its
 * counters, and injected faults (429/500/503, dropped connections, latency).
 */
import { z } from "zod";
import type { FaultConfig, Traffic } from "../traffic";
import { parse, type ControlRoute } from "./types";

const Schemas = {
  rateLimit: z.object({
    perSecond: z.number().min(0).nullable().optional(),
    authFailuresPerSecond: z.number().min(0).nullable().optional(),
  }),
  faults: z.object({
    latencyMs: z.number().min(0).optional(),
    rates: z
      .object({
        "429": z.number().min(0).max(1),
        "500": z.number().min(0).max(1),
        "503": z.number().min(0).max(1),
        drop: z.number().min(0).max(1),
      })
      .partial()
      .optional(),
    script: z
      .array(
        z.object({
          status: z.union([z.literal(429), z.literal(500), z.literal(503)]).optional(),
          drop: z.enum(["before", "after"]).optional(),
          retryAfter: z.number().int().min(0).optional(),
        }),
      )
      .optional(),
    operations: z.array(z.string()).optional(),
    seed: z.number().int().optional(),
  }),
};

/** A rate of 0 or null means "no limit". */
function limitOf(value: number | null | undefined): number {
  return value === null || value === undefined || value === 0 ? Infinity : value;
}

function rateLimitView(traffic: Traffic) {
  const show = (n: number) => (Number.isFinite(n) && n > 0 ? n : null);
  return { perSecond: show(traffic.rateLimiter.perSecond), authFailuresPerSecond: show(traffic.authFailureLimiter.perSecond) };
}

/** Rate limits, the request log, faults. */
export const trafficRoutes: ControlRoute[] = [
  {
    method: "GET",
    path: "/_emulator/rate-limit",
    summary: "Current limits (null: off)",
    handler: ({ runtime }) => ({ data: rateLimitView(runtime.traffic) }),
  },
  {
    method: "PUT",
    path: "/_emulator/rate-limit",
    summary: "Set limits: {perSecond?, authFailuresPerSecond?} (0 or null: off; a field left out stays)",
    handler: ({ runtime, body }) => {
      const b = parse(Schemas.rateLimit, body);
      if (b.perSecond !== undefined) runtime.traffic.rateLimiter.set(limitOf(b.perSecond));
      if (b.authFailuresPerSecond !== undefined) runtime.traffic.authFailureLimiter.set(limitOf(b.authFailuresPerSecond));
      return { data: rateLimitView(runtime.traffic) };
    },
  },
  {
    method: "GET",
    path: "/_emulator/requests",
    summary: "Request counters (per operation and status) and log; ?operation=Id filters the log",
    handler: ({ runtime, url }) => ({
      data: { counters: runtime.traffic.log.counters, log: runtime.traffic.log.list(url.searchParams.get("operation") ?? undefined) },
    }),
  },
  {
    method: "DELETE",
    path: "/_emulator/requests",
    summary: "Reset the request log and counters",
    handler: ({ runtime }) => {
      runtime.traffic.log.reset();
      return { status: 204 };
    },
  },
  {
    method: "GET",
    path: "/_emulator/faults",
    summary: "Current fault configuration",
    handler: ({ runtime }) => ({ data: runtime.traffic.faults.config }),
  },
  {
    method: "POST",
    path: "/_emulator/faults",
    summary:
      "Set faults: {latencyMs?, rates?: {429?,500?,503?,drop?}, script?: [{status?|drop?: before|after, retryAfter?}], operations?, seed?}",
    handler: ({ runtime, body }) => {
      runtime.traffic.faults.set(parse(Schemas.faults, body) as FaultConfig);
      return { data: runtime.traffic.faults.config };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/faults",
    summary: "Remove every fault",
    handler: ({ runtime }) => {
      runtime.traffic.faults.clear();
      return { status: 204 };
    },
  },
];
