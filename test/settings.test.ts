/**
 * Settings: every `reviewadmin:*` key and REVIEWADMIN_* variable read by one table, bad values
 * refused naming where they came from, and the warnings a program gets for an unknown key or an
 * API key in plain config.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { configWarnings, currentClient, resolveSettings, settingsFromConfig, SettingsError } from "../provider/settings";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("settings", () => {
  it("reads every setting from config, with its rule", () => {
    const config: Record<string, string> = {
      apiKey: "K.ABCDEFGH.SECRET",
      baseUrl: "https://api.example.com",
      requestsPerSecond: "10",
      requestTimeoutSeconds: "5",
      maxAttempts: "2",
      deadlineSeconds: "20",
      log: "DEBUG",
      insecureHttpHosts: "emulator, 10.0.0.5",
    };
    expect(settingsFromConfig((k) => config[k])).toEqual({
      apiKey: "K.ABCDEFGH.SECRET",
      baseUrl: "https://api.example.com",
      requestsPerSecond: 10,
      requestTimeoutSeconds: 5,
      maxAttempts: 2,
      deadlineSeconds: 20,
      log: "debug",
      insecureHttpHosts: ["emulator", "10.0.0.5"],
    });
    expect(() => settingsFromConfig((k) => (k === "maxAttempts" ? "2.5" : undefined))).toThrow(
      new SettingsError("reviewadmin: config reviewadmin:maxAttempts must be a positive integer, got '2.5'"),
    );
    expect(() => settingsFromConfig((k) => (k === "log" ? "verbose" : undefined))).toThrow(/reviewadmin:log must be "debug" or "off"/);
  });

  it("falls back to the environment, and names the variable of a bad value", () => {
    process.env.REVIEWADMIN_API_KEY = "K.ABCDEFGH.SECRET";
    process.env.REVIEWADMIN_BASE_URL = "http://127.0.0.1:1";
    process.env.REVIEWADMIN_DEADLINE_SECONDS = "7";
    process.env.REVIEWADMIN_MAX_ATTEMPTS = "3";
    expect(resolveSettings()).toMatchObject({ deadlineSeconds: 7, maxAttempts: 3 });
    expect(currentClient().toJSON()).toMatchObject({ maxAttempts: 3, deadlineMs: 7000 });
    process.env.REVIEWADMIN_DEADLINE_SECONDS = "soon";
    expect(() => resolveSettings()).toThrow(
      "reviewadmin: environment variable REVIEWADMIN_DEADLINE_SECONDS must be a positive number, got 'soon'",
    );
  });

  it("insecureHttpHosts: plain http to the hosts it names, each use announced as a warning", async () => {
    process.env.REVIEWADMIN_API_KEY = "K.ABCDEFGH.SECRETSECRET";
    process.env.REVIEWADMIN_BASE_URL = "http://emulator:8080";
    expect(() => currentClient()).toThrow(/plain http to a host that is not loopback.*REVIEWADMIN_INSECURE_HTTP_HOSTS/);
    process.env.REVIEWADMIN_INSECURE_HTTP_HOSTS = "http://emulator:8080";
    expect(() => resolveSettings()).toThrow(
      "reviewadmin: environment variable REVIEWADMIN_INSECURE_HTTP_HOSTS 'http://emulator:8080' is not a host name (no scheme, port or path: e.g. emulator or 10.0.0.5)",
    );
    process.env.REVIEWADMIN_INSECURE_HTTP_HOSTS = " , ";
    expect(() => resolveSettings()).toThrow(
      "reviewadmin: environment variable REVIEWADMIN_INSECURE_HTTP_HOSTS must name at least one host, got ' , '",
    );
    process.env.REVIEWADMIN_INSECURE_HTTP_HOSTS = "Emulator";
    // Outside a Pulumi program the SDK's warning goes to the console.
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const client = currentClient();
      expect(client.toJSON()).toMatchObject({ baseUrl: "http://emulator:8080", insecureHttpHosts: ["emulator"] });
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        "warning: [runtime] reviewadmin: plain http to http://emulator:8080 (baseUrl), allowed by the insecureHttpHosts setting: the API key and every request travel unencrypted. Use it for a test emulator only.",
      ]);
      await client.close();
    } finally {
      warn.mockRestore();
    }
  });

  it("warns about an unknown reviewadmin key and an API key in plain config", () => {
    const all = { "reviewadmin:apikey": "x", "reviewadmin:apiKey": "K.A.B", "reviewadmin:baseUrl": "https://x", "other:apikey": "y" };
    const warnings = configWarnings(all, () => false);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^config reviewadmin:apikey is not a setting of pulumi-reviewadmin \(known: reviewadmin:apiKey, .*\); it is ignored$/,
      ),
      "config reviewadmin:apiKey is stored in plain text in the stack's config file; store it encrypted: pulumi config set --secret reviewadmin:apiKey <key>",
    ]);
    expect(configWarnings({ "reviewadmin:apiKey": "K.A.B" }, (k) => k === "reviewadmin:apiKey")).toEqual([]);
  });
});
