/** The API key never shows: not in errors, their causes, the client's printouts or the log. */
import * as util from "node:util";
import { describe, expect, it } from "vitest";
import { ApiError, ClientConfigError, ReviewAdminClient, ResponseValidationError } from "../../provider/client";
import { db, newKey, ok, useScriptedClients } from "./scriptedClients";

const t = useScriptedClients();

describe("the key never shows", () => {
  it("is absent from errors, their stacks and causes, the client's printouts and the log", async () => {
    const lines: string[] = [];
    const c = t.client({ maxAttempts: 1, logger: (l) => lines.push(l) });
    const key = t.keyOf(c);
    // A short deadline only where the server stays silent: a slow first answer elsewhere must not time out.
    const impatient = t.client({ apiKey: key, maxAttempts: 1, timeoutMs: 100, logger: (l) => lines.push(l) });
    t.server.expect(
      // A server that echoes the Authorization header back must not get the key into the error.
      {
        method: "GET",
        path: "/v1/users/me",
        reply: (req) => ({ status: 401, json: { title: `bad credentials ${req.headers.authorization}`, status: 401 } }),
      },
      { method: "GET", path: "/v1/users/me", reply: { reset: true } },
      { method: "GET", path: "/v1/users/me", reply: { hang: true } },
      { method: "GET", path: "/v1/databases/1", reply: (req) => ok({ ...db(1), name: 1, echo: req.headers.authorization }) },
      { method: "GET", path: "/v1/databases/2", reply: (req) => ok({ ...db(2), echo: req.headers.authorization }) },
    );
    const errors = [
      await c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await c.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await impatient.call("GetCurrentUser", {}).catch((e: unknown) => e),
      await c.call("GetDatabase", { databaseId: 1 }).catch((e: unknown) => e),
      await c.call("GetDatabase", { databaseId: -1 }).catch((e: unknown) => e),
    ];
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      "ApiError",
      "NetworkError",
      "TimeoutError",
      "ResponseValidationError",
      "ParameterError",
    ]);
    expect(t.server.received[0].headers.authorization).toBe(`Bearer ${key}`); // the key did go where it belongs
    expect((errors[0] as ApiError).title).toBe("bad credentials Bearer [REDACTED]");
    // Data the service returns is the caller's: a redacted echo reaches them too.
    expect(await c.call("GetDatabase", { databaseId: 2 })).toMatchObject({ echo: "Bearer [REDACTED]" });

    const printouts = errors.flatMap((e) => [String(e), JSON.stringify(e), util.inspect(e, { depth: 10 }), (e as Error).stack ?? ""]);
    for (const client of [c, impatient]) {
      printouts.push(
        String(client),
        JSON.stringify(client),
        util.inspect(client, { depth: 10 }),
        util.inspect({ nested: { client } }, { depth: 10 }),
      );
    }
    printouts.push(...lines);
    expect(lines.length).toBeGreaterThan(0);
    for (const text of printouts) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.split(".")[2]); // nor the secret part on its own
    }
    expect(JSON.stringify(c)).toContain('"apiKey":"[REDACTED]"');
  });
});

/** Every character as a JSON `\u00XX` escape: what a hostile server echoes to slip past a search of the raw text. */
const escaped = (text: string) => [...text].map((c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");

/**
 * Every string reachable from `root`: own properties enumerable or not (message, stack, cause),
 * symbol-keyed ones, array items and map keys, through the whole object graph.
 */
function textsIn(root: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) return;
    seen.add(v);
    for (const k of Reflect.ownKeys(v)) {
      if (typeof k === "string") out.push(k);
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (d && "value" in d) visit(d.value);
    }
  };
  visit(root);
  return out;
}

/** Fails naming where the key (or its secret segment, in any case) shows in `texts`. */
function expectKeyless(texts: string[], key: string): void {
  const secret = key.split(".")[2]!.toLowerCase();
  expect(texts.filter((t) => t.toLowerCase().includes(secret))).toEqual([]);
}

describe("a server that echoes the key with JSON \\u escapes", () => {
  it("gets it into no error message or cause, no returned data, no log line, and no URL", async () => {
    const lines: string[] = [];
    const c = t.client({ maxAttempts: 1, logger: (l) => lines.push(l) });
    const key = t.keyOf(c);
    const echo = (req: { headers: Record<string, unknown> }) => escaped(String(req.headers.authorization).replace(/^Bearer /, ""));
    const json = (status: number, text: string) => ({ status, text, headers: { "content-type": "application/json" } });
    const url = t.server.url;
    t.server.expect(
      // 8 whole keys in one title, and the key as a map key.
      { method: "GET", path: "/v1/users/me", reply: (req) => json(401, `{"title":"${Array(8).fill(echo(req)).join(" ")}","status":401}`) },
      // A proxy's page that is not JSON, the key escaped in it.
      { method: "GET", path: "/v1/users/me", reply: (req) => ({ status: 502, text: `<p>${echo(req)}</p>` }) },
      // Data, nested and as a map key, on its way to state and outputs.
      {
        method: "GET",
        path: "/v1/databases/2",
        reply: (req) =>
          json(
            200,
            `{"data":{"id":2,"name":"${echo(req)}","orgAdminAccess":true,"owningOrganizationId":1,"x":{"${echo(req)}":["${echo(req)}"]}}}`,
          ),
      },
      // A same-origin next page whose URL carries the key, escaped in JSON and %-escaped.
      {
        method: "GET",
        path: "/v1/databases?limit=200",
        reply: (req) => json(200, `{"data":[${JSON.stringify(db(1))}],"links":{"next":"${url}/v1/databases?after=1&k=${echo(req)}"}}`),
      },
      {
        method: "GET",
        path: "/v1/databases?limit=200",
        reply: () =>
          json(
            200,
            `{"data":[],"links":{"next":"${url}/v1/databases?after=1&k=${encodeURIComponent(key).replace(/./g, (ch) => `%${ch.charCodeAt(0).toString(16)}`)}"}}`,
          ),
      },
    );
    const unauthorized = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
    const proxied = (await c.call("GetCurrentUser", {}).catch((e: unknown) => e)) as ApiError;
    const data = await c.call("GetDatabase", { databaseId: 2 });
    const nextJson = (await c.listAll("GetDatabases", {}).catch((e: unknown) => e)) as ResponseValidationError;
    const nextPercent = (await c.listAll("GetDatabases", {}).catch((e: unknown) => e)) as ResponseValidationError;

    expect(unauthorized).toBeInstanceOf(ApiError);
    expect(unauthorized.title).toBe(Array(8).fill("[REDACTED]").join(" "));
    expect(proxied).toBeInstanceOf(ApiError);
    expect(proxied.body).toBe("<p>[REDACTED]</p>");
    expect(data).toMatchObject({ name: "[REDACTED]", x: { "[REDACTED]": ["[REDACTED]"] } });
    for (const err of [nextJson, nextPercent]) {
      expect(err).toBeInstanceOf(ResponseValidationError);
      expect(err.message).toMatch(/response field 'links.next' holds the API key; refusing to send the key in a URL/);
    }
    // The key went in the Authorization header of each request, and in no request's URL.
    expect(t.server.received.map((r) => r.path).filter((p) => p.includes("after"))).toEqual([]);

    const errors = [unauthorized, proxied, nextJson, nextPercent];
    const texts = [
      ...errors.flatMap((e) => [...textsIn(e), String(e), JSON.stringify(e), util.inspect(e, { depth: Infinity, showHidden: true })]),
      ...textsIn(data),
      JSON.stringify(data),
      ...lines,
    ];
    expect(lines.length).toBeGreaterThan(0);
    expectKeyless(texts, key);
  });
});

describe("nothing a thrown error carries holds the key", () => {
  it("refuses a base URL that holds the key, in a message and cause chain without it", async () => {
    const key = newKey();
    for (const baseUrl of [`${t.server.url}/${key}`, `${t.server.url}/x/${key.split(".")[2]}/`, `${t.server.url}/${escaped(key)}`]) {
      const err = (() => {
        try {
          return new ReviewAdminClient({ baseUrl, apiKey: key });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ClientConfigError);
      expect((err as Error).message).toBe("baseUrl must not contain the API key: the key goes only in the Authorization header");
      expectKeyless([...textsIn(err), util.inspect(err, { depth: Infinity, showHidden: true })], key);
    }
    expect(t.server.received).toEqual([]);
  });
});
