/**
 * The explicit opt-in for plain http off loopback (ClientOptions.insecureHttpHosts, the setting
 * reviewadmin:insecureHttpHosts): only the hosts it names, named whole, and announced by a
 * warning once per client and origin, never silently. The "other host" here is 0.0.0.0, which is
 * not a loopback name but reaches the scripted server on this machine.
 */
import { describe, expect, it } from "vitest";
import { ClientConfigError, InsecureUrlError, ReviewAdminClient } from "../../provider/client";
import { checkUrl, insecureHttpHost } from "../../provider/client/security";
import { db, newKey, ok, useScriptedClients } from "./scriptedClients";

const t = useScriptedClients();

/** The scripted server's URL under a host that is not a loopback name. */
const elsewhere = () => t.server.url.replace("127.0.0.1", "0.0.0.0");

describe("insecureHttpHosts", () => {
  it("is refused by default, and the refusal names the opt-in", () => {
    expect(() => new ReviewAdminClient({ baseUrl: elsewhere(), apiKey: newKey() })).toThrow(InsecureUrlError);
    expect(() => checkUrl("http://emulator:8080", "baseUrl")).toThrow(
      /plain http to a host that is not loopback.*reviewadmin:insecureHttpHosts or REVIEWADMIN_INSECURE_HTTP_HOSTS/,
    );
    // Naming one host allows that host only, over plain http only.
    expect(checkUrl("http://emulator:8080", "baseUrl", ["emulator"]).host).toBe("emulator:8080");
    expect(() => checkUrl("http://other:8080", "baseUrl", ["emulator"])).toThrow(InsecureUrlError);
    expect(() => checkUrl("ftp://emulator", "baseUrl", ["emulator"])).toThrow(/must use https/);
  });

  it("takes host names whole: no scheme, port, path or wildcard", () => {
    expect(insecureHttpHost(" Emulator ")).toBe("emulator");
    expect(insecureHttpHost("10.0.0.5")).toBe("10.0.0.5");
    expect(insecureHttpHost("[FD00::5]")).toBe("[fd00::5]");
    for (const bad of ["http://emulator", "emulator:8080", "emulator/v1", "*.example.com", "", "user@emulator"]) {
      expect(() => insecureHttpHost(bad), bad).toThrow();
      expect(() => new ReviewAdminClient({ baseUrl: "https://api.example.com", apiKey: newKey(), insecureHttpHosts: [bad] }), bad).toThrow(
        ClientConfigError,
      );
    }
    expect(() => insecureHttpHost("*.example.com")).toThrow("'*.example.com': no wildcards, name each host");
    expect(() => insecureHttpHost("emulator:8080")).toThrow(
      "'emulator:8080' is not a host name (no scheme, port or path: e.g. emulator or 10.0.0.5)",
    );
  });

  it("sends to a named host, announcing it once per origin, and never names the key", async () => {
    const warnings: string[] = [];
    const c = t.client({ baseUrl: elsewhere(), insecureHttpHosts: ["0.0.0.0"], warn: (line) => void warnings.push(line) });
    const origin = new URL(elsewhere()).origin;
    expect(warnings).toEqual([
      `reviewadmin: plain http to ${origin} (baseUrl), allowed by the insecureHttpHosts setting: the API key and every request travel unencrypted. Use it for a test emulator only.`,
    ]);
    expect(c.toJSON()).toMatchObject({ insecureHttpHosts: ["0.0.0.0"] });
    t.server.expect({ method: "GET", path: "/v1/databases/7", reply: ok(db(7)) });
    t.server.expect({ method: "GET", path: "/v1/databases/8", reply: ok(db(8)) });
    expect((await c.call("GetDatabase", { databaseId: 7 })).id).toBe(7);
    expect((await c.call("GetDatabase", { databaseId: 8 })).id).toBe(8);
    expect(t.server.received[0]!.headers.host).toBe(new URL(elsewhere()).host);
    // A part URL on the same origin was announced already; one on another origin is refused.
    t.server.expect({ method: "PUT", path: "/_upload/t1", reply: { status: 200, headers: { etag: '"e1"' } } });
    expect(await c.putPart(`${elsewhere()}/_upload/t1`, Buffer.from("x"))).toEqual({ etag: '"e1"' });
    await expect(c.putPart("http://storage.internal/_upload/t2", Buffer.from("x"))).rejects.toThrow(InsecureUrlError);
    expect(warnings).toHaveLength(1);
    expect(warnings.join("\n")).not.toContain(t.keyOf(c));
  });

  it("announces a part URL reached through the opt-in, and warns on stderr when given no warn function", async () => {
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const c = t.client({ insecureHttpHosts: ["0.0.0.0"] });
      t.server.expect({ method: "PUT", path: "/_upload/t3", reply: { status: 200, headers: { etag: '"e3"' } } });
      await c.putPart(`${elsewhere()}/_upload/t3`, Buffer.from("x"));
    } finally {
      process.stderr.write = write;
    }
    // The base URL is loopback: nothing to say about it; the part URL is not.
    expect(writes).toEqual([
      `warning: reviewadmin: plain http to ${new URL(elsewhere()).origin} (part URL), allowed by the insecureHttpHosts setting: part uploads travel unencrypted. Use it for a test emulator only.\n`,
    ]);
  });
});
