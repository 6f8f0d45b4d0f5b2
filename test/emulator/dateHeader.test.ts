/**
 * The Date header of the emulator's answers follows its clock, not the machine's: the provider
 * takes "today" from it (expiring access, provider/resources/support/expiry.ts), and tests move
 * that clock with POST /_emulator/clock.
 */
import { describe, expect, it } from "vitest";
import { getClient } from "../../provider/client";
import { api, control, useEmulator } from "../support/emulatorHttp";

const emu = useEmulator();
const DAY = 86_400_000;

describe("the Date header", () => {
  it("tells the emulator's clock, moved days ahead; the client reads it as serviceNow", async () => {
    const before = Date.parse((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).headers.get("date")!);
    expect(Math.abs(before - emu.store.clock.now())).toBeLessThan(2_000);
    try {
      expect((await control(emu.url, "POST", "/clock", { advanceDays: 3 })).status).toBe(200);
      const answer = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
      expect(Date.parse(answer.headers.get("date")!) - Date.now()).toBeGreaterThan(3 * DAY - 5_000);
      const client = getClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin!, requestsPerSecond: 1000 });
      expect(client.serviceNow()).toBeUndefined();
      await client.call("GetCurrentUser", {});
      expect(client.serviceNow()! - Date.now()).toBeGreaterThan(3 * DAY - 5_000);
    } finally {
      await control(emu.url, "POST", "/clock", { advanceMs: -emu.store.clock.offsetMs });
    }
  });
});
