/** A fresh seeded emulator for the policy pack's program tests, and the provider config pointing at it. */
import { startEmulator } from "../../emulator";

/** A fresh seeded emulator: its provider config (keys namespaced, as `pulumi config set` writes them), and close(). */
export async function policyEmulator(): Promise<{ config: Record<string, string>; close(): Promise<void> }> {
  const emu = await startEmulator({ rateLimit: 0 });
  return {
    config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin, "reviewadmin:requestsPerSecond": "1000" },
    close: () => emu.close(),
  };
}
