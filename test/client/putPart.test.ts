/** putPart: raw bytes to a pre-authenticated URL, without the key, and what it retries. */
import { Readable } from "node:stream";
import * as util from "node:util";
import { describe, expect, it } from "vitest";
import { ParameterError, type ApiError } from "../../provider/client";
import { useScriptedClients } from "./scriptedClients";

const t = useScriptedClients();

describe("putPart", () => {
  it("PUTs bytes without the key and returns the ETag", async () => {
    const c = t.client();
    t.server.expect({ method: "PUT", path: "/parts/1?sig=abc", reply: { status: 200, headers: { etag: '"e1"' } } });
    expect(await c.putPart(`${t.server.url}/parts/1?sig=abc`, Buffer.from("hello"))).toEqual({ etag: '"e1"' });
    const [req] = t.server.received;
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers["content-length"]).toBe("5");
    expect(req.body.toString()).toBe("hello");
    expect(c.stats.byOperation).toEqual({ putPart: 1 });
  });

  it("retries a byte body on 5xx and sends a stream of known size once", async () => {
    const c = t.client();
    t.server.expect(
      { method: "PUT", path: "/parts/2", reply: { status: 500, text: "oops" } },
      { method: "PUT", path: "/parts/2", reply: { status: 200, headers: { etag: "e2" } } },
      { method: "PUT", path: "/parts/3", reply: { status: 200, headers: { etag: "e3" } } },
      { method: "PUT", path: "/parts/4", reply: { status: 503, text: "busy" } },
    );
    expect(await c.putPart(`${t.server.url}/parts/2`, new Uint8Array([1, 2, 3]))).toEqual({ etag: "e2" });
    expect(await c.putPart(`${t.server.url}/parts/3`, Readable.from([Buffer.from("ab"), Buffer.from("cd")]), { size: 4 })).toEqual({
      etag: "e3",
    });
    expect(t.server.received[2].body.toString()).toBe("abcd");
    const err = await c.putPart(`${t.server.url}/parts/4`, Readable.from([Buffer.from("x")]), { size: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, attempts: 1 });
    await expect(c.putPart(`${t.server.url}/parts/5`, Readable.from([Buffer.from("x")]))).rejects.toThrow(ParameterError);
  });

  it("reports a missing ETag, and never puts the URL's query (its credential) in an error", async () => {
    const c = t.client();
    t.server.expect(
      { method: "PUT", path: "/parts/6?sig=SECRET", reply: { status: 200 } },
      { method: "PUT", path: "/parts/7?sig=SECRET", reply: { status: 403, json: { title: "Signature expired", status: 403 } } },
    );
    const missing = await c.putPart(`${t.server.url}/parts/6?sig=SECRET`, Buffer.from("x")).catch((e: unknown) => e);
    expect(missing).toMatchObject({ fieldPath: "headers.etag" });
    const denied = (await c.putPart(`${t.server.url}/parts/7?sig=SECRET`, Buffer.from("x")).catch((e: unknown) => e)) as ApiError;
    expect(denied.message).toBe("putPart PUT /parts/7: 403 Signature expired");
    expect(util.inspect(denied, { depth: 10 })).not.toContain("SECRET");
  });
});
