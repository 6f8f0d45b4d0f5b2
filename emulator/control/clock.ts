/** Control routes for the emulator's clock: read it, move it forward (invitations expire, bills roll over). */
import { z } from "zod";
import type { Store } from "../model/store";
import { parse, type ControlRoute } from "./types";

const Schemas = {
  clock: z.strictObject({ advanceMs: z.number().optional(), advanceDays: z.number().optional() }),
};

function clockView(store: Store) {
  return { now: store.clock.iso(), nowMs: store.clock.now(), offsetMs: store.clock.offsetMs };
}

/** Read and advance the clock. */
export const clockRoutes: ControlRoute[] = [
  { method: "GET", path: "/_emulator/clock", summary: "The emulator's now", handler: ({ store }) => ({ data: clockView(store) }) },
  {
    method: "POST",
    path: "/_emulator/clock",
    summary: "Advance the clock: {advanceMs?, advanceDays?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.clock, body);
      store.clock.advance((b.advanceMs ?? 0) + (b.advanceDays ?? 0) * 86_400_000);
      store.changed();
      return { data: clockView(store) };
    },
  },
];
