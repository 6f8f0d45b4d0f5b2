/** The API key never shows: not in errors, their causes, the client's printouts or the log. */
import * as util from "node:util";
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../provider/client";
import { db, ok, useScriptedClients } from "./scriptedClients";

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
