/**
 * The API key's shape is stated once (contract/apiKey.ts) and its three readers agree on it: the
 * emulator mints keys in it, the doctor shows a key's ID and nothing else, and the client's
 * redaction takes out the key and its SECRET on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diagnose } from "../../cli/doctor/diagnose";
import { formatReport } from "../../cli/doctor/report";
import { API_KEY_SHAPE, API_KEY_SHAPE_TEXT, apiKeyParts, keyIdOf, secretOf } from "../../contract/apiKey";
import { KEY_SHAPE, SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { redact, REDACTED } from "../../provider/client/security";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu?.close();
});

/** The doctor's report on `apiKey` against the emulator, from the environment as `doctor --env` reads it. */
async function doctorOn(apiKey: string) {
  const names = ["REVIEWADMIN_API_KEY", "REVIEWADMIN_BASE_URL", "REVIEWADMIN_OPENAPI", "REVIEWADMIN_REQUESTS_PER_SECOND"];
  const saved = names.map((n) => process.env[n]);
  for (const n of names) delete process.env[n];
  Object.assign(process.env, { REVIEWADMIN_API_KEY: apiKey, REVIEWADMIN_BASE_URL: emu.url });
  try {
    return await diagnose();
  } finally {
    names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
  }
}

describe("the API key's shape", () => {
  it("is the shape of every key the emulator mints", () => {
    const minted = [...Object.values(emu.keys), emu.store.apiKeys.mintUserKey(SEEDED.users.orgAdmin).key];
    for (const key of minted) {
      expect(key).toMatch(API_KEY_SHAPE);
      expect(key).toMatch(KEY_SHAPE);
      const parts = apiKeyParts(key)!;
      expect(`${parts.prefix}.${parts.id}.${parts.secret}`).toBe(key);
      expect(parts.id).toHaveLength(8);
      expect(parts.secret).toHaveLength(56);
    }
  });

  it("gives the doctor the ID to show, and nothing else of the key", async () => {
    const key = emu.keys.orgAdmin!;
    const report = await doctorOn(key);
    expect(report.keyId).toBe(keyIdOf(key));
    const text = formatReport(report);
    expect(text).toContain(`${keyIdOf(key)} (the key id; the rest of the key is never shown)`);
    expect(text).not.toContain(secretOf(key));
    expect(report.problems.map((p) => p.code)).not.toContain("key-shape");
  });

  it("a key out of shape: the doctor shows no part of it and says what the shape is", async () => {
    const report = await doctorOn("ra.short.secret");
    expect(report.keyId).toBeUndefined();
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        code: "key-shape",
        message: `the key does not have the shape ${API_KEY_SHAPE_TEXT}, so no part of it is shown`,
      }),
    );
  });

  it("tells redaction which part is the SECRET: it goes, on its own too, and the ID stays", () => {
    const key = emu.keys.orgAdmin!;
    const { id, secret } = apiKeyParts(key)!;
    expect(redact(`key ${key}; secret ${secret}; lower ${secret.toLowerCase()}; id ${id}`, key)).toBe(
      `key ${REDACTED}; secret ${REDACTED}; lower ${REDACTED}; id ${id}`,
    );
    // Out of shape, the key goes whole and nothing else is guessed at.
    expect(redact("ra.short.secret and secret", "ra.short.secret")).toBe(`${REDACTED} and secret`);
  });
});
