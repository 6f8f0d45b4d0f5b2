/**
 * Uploads (model/uploadStore.ts and partUpload.ts): datasets and their cap, parts streamed to
 * disk through handlePartUpload (out of order, retried, resumed), the complete-upload rules, SHA1
 * checks, processing, and direct links served by loopback servers with and without Range
 * support; then up1 to up5 over HTTP. Part sizes are shrunk to keep it fast, and processing
 * finishes when a test advances the emulator clock, never by waiting.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SEEDED } from "../../emulator";
import { BadRequest, NotFound, Unprocessable } from "../../emulator/errors";
import { Store } from "../../emulator/model/store";
import { PART_UPLOAD_PREFIX, UPLOAD_LIMITS, type UploadStore } from "../../emulator/model/uploadStore";
import { handlePartUpload } from "../../emulator/partUpload";
import { api, useEmulator } from "../support/emulatorHttp";

const MIN = 1024;
const DB = 2001;

/** Starts a loopback server; resolves with its base URL. */
async function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

const md5 = (b: Buffer) => `"${createHash("md5").update(b).digest("hex")}"`;
const sha1 = (b: Buffer) => createHash("sha1").update(b).digest("hex");

/** Processing time: an hour, so only a test advancing the emulator clock ends it. */
const PROCESSING_MS = 3_600_000;

describe("the upload model and the part PUT, on a store of its own", () => {
  let store: Store;
  let uploads: UploadStore;
  let partServer: { url: string; server: http.Server };

  beforeAll(async () => {
    // Stands in for the emulator's server: every /_upload/ path goes to handlePartUpload.
    partServer = await listen((req, res) => {
      if (req.url?.startsWith(PART_UPLOAD_PREFIX)) void handlePartUpload(req, res, store);
      else res.writeHead(404).end();
    });
  });
  afterAll(() => new Promise<void>((r) => partServer.server.close(() => r())));

  beforeEach(() => {
    // A frozen clock: only advance() moves it, so a 1 ms margin below is exact, not a race.
    const start = Date.parse("2024-06-20T12:00:00Z");
    store = new Store({ clock: () => start });
    uploads = store.configureUploads({ minPartSize: MIN, processingDelayMs: PROCESSING_MS, rangeChunkSize: 1000 });
  });
  afterEach(async () => {
    await uploads.close();
  });

  async function put(url: string, body: Buffer): Promise<{ status: number; etag: string | null; body: string }> {
    const res = await fetch(url, { method: "PUT", body });
    return { status: res.status, etag: res.headers.get("etag"), body: await res.text() };
  }

  async function newFile(): Promise<number> {
    const ds = uploads.createDataset(DB, { name: "Collection 1" });
    return uploads.createSourceFile(DB, ds.id, { filename: "mail.pst" }).id;
  }

  async function putPart(id: number, n: number, body: Buffer) {
    return put(uploads.partUrl(DB, id, n, partServer.url).url, body);
  }

  describe("datasets", () => {
    it("caps datasets per database with a 422 naming the limit, changeable per database", () => {
      uploads = store.configureUploads({ datasetLimit: 2 });
      uploads.createDataset(DB, { name: "a" });
      uploads.createDataset(DB, { name: "b" });
      expect(() => uploads.createDataset(DB, { name: "c" })).toThrow(Unprocessable);
      expect(() => uploads.createDataset(DB, { name: "c" })).toThrow(/dataset limit of 2 datasets per database reached/);
      expect(uploads.createDataset(2002, { name: "other db" }).name).toBe("other db");
      uploads.setDatasetLimit(DB, 3);
      expect(uploads.createDataset(DB, { name: "c" }).id).toBeGreaterThan(0);
    });

    it("keeps the spec's defaults when not configured", () => {
      expect(UPLOAD_LIMITS).toEqual({
        minPartSize: 5 * 1024 * 1024,
        maxPartSize: 5 * 1024 ** 3,
        maxParts: 10_000,
        maxFileSize: 5 * 1024 ** 4,
      });
      expect(new Store().uploads.datasetLimit(1)).toBe(25);
    });

    it("refuses a source file in a dataset of another database", () => {
      const ds = uploads.createDataset(DB, { name: "a" });
      expect(() => uploads.createSourceFile(2002, ds.id, { filename: "x" })).toThrow(NotFound);
    });
  });

  describe("multipart upload", () => {
    const p1 = bytes(MIN, 1);
    const p2 = bytes(MIN + 10, 2);
    const p3 = bytes(300, 3);
    const whole = Buffer.concat([p1, p2, p3]);

    it("takes parts out of order, replaces a retried part, assembles, and processes", async () => {
      const id = await newFile();
      expect(uploads.view(uploads.sourceFile(DB, id)).state).toBe("UPLOADING");
      const r3 = await putPart(id, 3, p3);
      expect(r3).toMatchObject({ status: 200, etag: md5(p3) });
      const bad = await putPart(id, 2, bytes(MIN + 10, 99)); // a corrupted first attempt
      await putPart(id, 1, p1);
      const r2 = await putPart(id, 2, p2); // the retry, through a new URL
      expect(r2.etag).not.toBe(bad.etag);
      expect(uploads.listParts(DB, id)).toEqual([
        { partNumber: 1, etag: md5(p1), size: p1.length },
        { partNumber: 2, etag: md5(p2), size: p2.length },
        { partNumber: 3, etag: md5(p3), size: p3.length },
      ]);
      // Only the latest bytes of each part remain on disk.
      expect(fs.readdirSync(`${uploads.dir}/sourcefile-${id}`)).toHaveLength(3);

      const done = await uploads.complete(DB, id, { etags: [md5(p1), r2.etag!, r3.etag!], sha1: sha1(whole) });
      expect(done).toMatchObject({ id, state: "PROCESSING", size: whole.length, sha1: sha1(whole) });
      expect(fs.readFileSync(uploads.sourceFile(DB, id).path!).equals(whole)).toBe(true);
      store.clock.advance(PROCESSING_MS);
      expect(uploads.view(uploads.sourceFile(DB, id)).state).toBe("PROCESSED");
      // No more parts once complete.
      expect(() => uploads.partUrl(DB, id, 1, partServer.url)).toThrow(/PROCESSED, not UPLOADING/);
    });

    it("resumes an interrupted upload from the list of parts", async () => {
      const id = await newFile();
      const parts = [p1, p2, p3];
      await putPart(id, 1, p1);
      await putPart(id, 3, p3);
      // "Interrupted": the client lists what arrived and sends only the missing part.
      const received = new Set(uploads.listParts(DB, id).map((p) => p.partNumber));
      for (let n = 1; n <= 3; n++) if (!received.has(n)) await putPart(id, n, parts[n - 1]);
      const etags = uploads.listParts(DB, id).map((p) => p.etag);
      expect((await uploads.complete(DB, id, { etags })).state).toBe("PROCESSING");
    });

    it("refuses a SHA1 that differs, naming sha1, and leaves the file UPLOADING", async () => {
      const id = await newFile();
      for (const [n, b] of [p1, p2, p3].entries()) await putPart(id, n + 1, b);
      const etags = [md5(p1), md5(p2), md5(p3)];
      const err = await uploads.complete(DB, id, { etags, sha1: "0".repeat(40) }).catch((e) => e);
      expect(err).toBeInstanceOf(BadRequest);
      expect(err.parameter).toBe("sha1");
      expect(uploads.sourceFile(DB, id).state).toBe("UPLOADING");
      // ETags without quotes and in upper case are the same ETags.
      const ok = await uploads.complete(DB, id, {
        etags: etags.map((e) => e.replace(/"/g, "").toUpperCase()),
        sha1: sha1(whole).toUpperCase(),
      });
      expect(ok.state).toBe("PROCESSING");
    });

    it("answers a repeated completion with the same ETags and SHA1 with the file, and a different one with 400", async () => {
      const id = await newFile();
      for (const [n, b] of [p1, p2, p3].entries()) await putPart(id, n + 1, b);
      const etags = [md5(p1), md5(p2), md5(p3)];
      const first = await uploads.complete(DB, id, { etags, sha1: sha1(whole) });
      const assembled = uploads.sourceFile(DB, id).path;
      // The answer was lost; the client sends the same completion again (quoted or not, any case, with or without the SHA1).
      expect(await uploads.complete(DB, id, { etags, sha1: sha1(whole) })).toEqual(first);
      expect(await uploads.complete(DB, id, { etags: etags.map((e) => e.replace(/"/g, "").toUpperCase()) })).toEqual(first);
      expect(uploads.sourceFile(DB, id).path).toBe(assembled); // nothing assembled again
      store.clock.advance(PROCESSING_MS);
      expect(await uploads.complete(DB, id, { etags })).toEqual({ ...first, state: "PROCESSED" });
      // Another file's completion is not this one's: the usual refusal of a file no longer uploading.
      const refusal = (req: { etags: string[]; sha1?: string }) =>
        uploads.complete(DB, id, req).then(
          () => "completed",
          (e: BadRequest) => e.message,
        );
      const notUploading = `invalid parameter 'sourceFileId': source file ${id} is PROCESSED, not UPLOADING; it takes no more completion`;
      expect(await refusal({ etags: [md5(p1), md5(p3), md5(p3)] })).toBe(notUploading);
      expect(await refusal({ etags: [md5(p1), md5(p2)] })).toBe(notUploading);
      expect(await refusal({ etags, sha1: "0".repeat(40) })).toBe(notUploading);
    });

    it("enforces the part rules at completion", async () => {
      const id = await newFile();
      await putPart(id, 1, p1);
      await putPart(id, 3, p3);
      const fail = (etags: string[]) =>
        uploads.complete(DB, id, { etags }).then(
          () => "completed",
          (e: BadRequest) => `${e.parameter}: ${e.rule}`,
        );
      expect(await fail([md5(p1), md5(p2), md5(p3)])).toMatch(/^etags: part 2 has not been uploaded/);
      expect(await fail([md5(p1)])).toMatch(/part 3 was uploaded but has no ETag/);
      await putPart(id, 2, bytes(MIN - 1, 5)); // too small for a part that is not the last
      expect(await fail([md5(p1), md5(bytes(MIN - 1, 5)), md5(p3)])).toMatch(/part 2 is 1023 bytes; every part but the last must be 1024/);
      await putPart(id, 2, p2);
      expect(await fail([md5(p1), md5(p3), md5(p3)])).toMatch(/^etags\.1: does not match the ETag of part 2/);
      expect(uploads.sourceFile(DB, id).state).toBe("UPLOADING");

      uploads = store.configureUploads({ minPartSize: MIN, maxParts: 2 });
      expect(await fail([md5(p1), md5(p2), md5(p3)])).toMatch(/at most 2 parts/);
    });

    it("lets the last part be small and a single-part file be any size", async () => {
      const id = await newFile();
      const tiny = bytes(10, 1);
      const r = await putPart(id, 1, tiny);
      expect((await uploads.complete(DB, id, { etags: [r.etag!] })).size).toBe(10);
    });

    it("moves PROCESSING to PROCESSED once the emulator clock passes the processing delay", async () => {
      const id = await newFile();
      const r = await putPart(id, 1, p3);
      await uploads.complete(DB, id, { etags: [r.etag!] });
      store.clock.advance(PROCESSING_MS - 1);
      expect(uploads.view(uploads.sourceFile(DB, id)).state).toBe("PROCESSING");
      store.clock.advance(1);
      expect(uploads.view(uploads.sourceFile(DB, id)).state).toBe("PROCESSED");
    });

    it("answers 404 for an unknown part URL, 405 for a method other than PUT, 400 after completion", async () => {
      expect((await put(`${partServer.url}${PART_UPLOAD_PREFIX}deadbeef`, p3)).status).toBe(404);
      const id = await newFile();
      const url = uploads.partUrl(DB, id, 1, partServer.url).url;
      const get = await fetch(url);
      expect(get.status).toBe(405);
      expect(await get.json()).toMatchObject({ status: 405 });
      const r = await put(url, p3);
      await uploads.complete(DB, id, { etags: [r.etag!] });
      const late = await put(url, p3);
      expect(late.status).toBe(400);
      expect(JSON.parse(late.body).title).toMatch(/not UPLOADING/);
    });

    it("keeps its state in the world's snapshot and rebinds after a reset", async () => {
      const id = await newFile();
      expect(store.toJSON().uploads!.sourceFiles[id]!.filename).toBe("mail.pst");
      const snapshot = JSON.parse(JSON.stringify(store.toJSON()));
      store.clear();
      expect(() => store.uploads.sourceFile(DB, id)).toThrow(NotFound);
      store.load(snapshot);
      expect(store.uploads.sourceFile(DB, id).filename).toBe("mail.pst");
      uploads = store.uploads;
    });

    it("loads a state file written before issue 25, which kept uploads under extensions", async () => {
      const id = await newFile();
      const { uploads: kept, ...rest } = JSON.parse(JSON.stringify(store.toJSON()));
      store.load({ ...rest, extensions: { uploads: kept } });
      expect(store.uploads.sourceFile(DB, id).filename).toBe("mail.pst");
      expect(store.toJSON()).toMatchObject({ uploads: { sourceFiles: { [id]: { filename: "mail.pst" } } } });
      expect(store.toJSON()).not.toHaveProperty("extensions");
      uploads = store.uploads;
    });
  });

  describe("direct links", () => {
    const content = bytes(2500, 9);
    let ranged: { url: string; server: http.Server };
    let plain: { url: string; server: http.Server };
    const rangesSeen: string[] = [];

    beforeAll(async () => {
      // Serves `content` with Range support (206 and Content-Range), as a cloud object store does.
      ranged = await listen((req, res) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
        rangesSeen.push(req.headers.range ?? "");
        if (!m) return void res.writeHead(200, { "content-length": content.length }).end(content);
        const start = Number(m[1]);
        const end = Math.min(Number(m[2]), content.length - 1);
        res.writeHead(206, { "content-range": `bytes ${start}-${end}/${content.length}`, "content-length": end - start + 1 });
        res.end(content.subarray(start, end + 1));
      });
      // Ignores Range and sends the whole body with 200.
      plain = await listen((_req, res) => void res.writeHead(200, { "content-length": content.length }).end(content));
    });
    afterAll(async () => {
      await new Promise<void>((r) => ranged.server.close(() => r()));
      await new Promise<void>((r) => plain.server.close(() => r()));
    });

    it("downloads at once in Range requests, then processes", async () => {
      const ds = uploads.createDataset(DB, { name: "links" });
      const created = uploads.createSourceFile(DB, ds.id, { filename: "export.zip", directLink: `${ranged.url}/export.zip?sig=abc` });
      expect(created.state).toBe("UPLOADING");
      await uploads.settled(created.id);
      const f = uploads.sourceFile(DB, created.id);
      expect(f.state).toBe("PROCESSING");
      expect(f.sha1).toBe(sha1(content));
      expect(fs.readFileSync(f.path!).equals(content)).toBe(true);
      expect(rangesSeen).toEqual(["bytes=0-999", "bytes=1000-1999", "bytes=2000-2999"]);
      store.clock.advance(PROCESSING_MS);
      expect(uploads.view(uploads.sourceFile(DB, created.id)).state).toBe("PROCESSED");
      // A direct-link file takes no parts.
      expect(() => uploads.partUrl(DB, created.id, 1, partServer.url)).toThrow(/direct link/);
    });

    it("fails the file with a clear error when the host does not support Range requests", async () => {
      const ds = uploads.createDataset(DB, { name: "links" });
      const created = uploads.createSourceFile(DB, ds.id, { filename: "export.zip", directLink: `${plain.url}/export.zip` });
      await uploads.settled(created.id);
      const v = uploads.view(uploads.sourceFile(DB, created.id));
      expect(v.state).toBe("FAILED");
      expect(v.error).toMatch(/does not support HTTP Range requests/);
    });

    it("fails the file when the link answers an error status, and refuses a non-http link", async () => {
      const ds = uploads.createDataset(DB, { name: "links" });
      const gone = await listen((_req, res) => void res.writeHead(403).end());
      const created = uploads.createSourceFile(DB, ds.id, { filename: "x", directLink: `${gone.url}/x` });
      await uploads.settled(created.id);
      expect(uploads.view(uploads.sourceFile(DB, created.id)).error).toMatch(/HTTP 403/);
      await new Promise<void>((r) => gone.server.close(() => r()));
      expect(() => uploads.createSourceFile(DB, ds.id, { filename: "x", directLink: "ftp://example.com/x" })).toThrow(/http or https/);
    });
  });
});

describe("uploads over HTTP (up1 to up5 and the part PUT)", () => {
  const emu = useEmulator();
  const db = SEEDED.databases.restricted;
  const post = (role: string, path: string, body: unknown) => api(emu.url, emu.keys[role], "POST", path, body);

  // Each test starts from the seeded world (no dataset yet), with parts of 1 KiB allowed.
  beforeEach(() => {
    emu.reset();
    emu.store.configureUploads({ minPartSize: 1024, processingDelayMs: 20 });
  });

  it("creates a dataset and a file, uploads parts to pre-authenticated URLs, resumes, and completes", async () => {
    const ds = await post("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "Custodian A", timezone: "Europe/London" });
    expect(ds.status).toBe(200);
    const sf = await post("databaseAdmin", `/v1/databases/${db}/datasets/${ds.body.data.id}/sourceFiles`, { filename: "a.zip" });
    expect(sf.body.data).toMatchObject({ state: "UPLOADING" });
    const id = sf.body.data.id;

    const parts = [Buffer.alloc(1500, 1), Buffer.alloc(700, 2)];
    for (const n of [2, 1]) {
      const u = await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/parts/${n}`, {});
      expect(u.body.data.partNumber).toBe(n);
      expect(u.body.data.url.startsWith(`${emu.url}/_upload/`)).toBe(true);
      // No API key: the URL is the credential.
      const put = await fetch(u.body.data.url, { method: "PUT", body: parts[n - 1] });
      expect(put.status).toBe(200);
      expect(put.headers.get("etag")).toBe(
        `"${createHash("md5")
          .update(parts[n - 1])
          .digest("hex")}"`,
      );
    }
    const listed = await api(emu.url, emu.keys.databaseAdmin, "GET", `/v1/databases/${db}/sourceFiles/${id}/parts`);
    expect(listed.body.data.map((p: any) => [p.partNumber, p.size])).toEqual([
      [1, 1500],
      [2, 700],
    ]);

    const wrong = await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, {
      etags: listed.body.data.map((p: any) => p.etag),
      sha1: "a".repeat(40),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.title).toMatch(/sha1/);
    const done = await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, {
      etags: listed.body.data.map((p: any) => p.etag),
      sha1: createHash("sha1").update(Buffer.concat(parts)).digest("hex"),
    });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ id, state: "PROCESSING" });
    // The same completion again (its answer lost): 200 and the file as it is now.
    const again = await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, {
      etags: listed.body.data.map((p: any) => p.etag),
      sha1: createHash("sha1").update(Buffer.concat(parts)).digest("hex"),
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id, state: expect.stringMatching(/^PROCESSING|PROCESSED$/) });
    const other = await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, { etags: [listed.body.data[0].etag] });
    expect(other.status).toBe(400);
    expect(other.body.title).toMatch(new RegExp(`source file ${id} is PROCESS(ING|ED), not UPLOADING`));
  });

  it("treats a client that hangs up mid-body as no request: no answer, no error report, the part not kept", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ds = await post("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "hang-ups" });
      const sf = await post("databaseAdmin", `/v1/databases/${db}/datasets/${ds.body.data.id}/sourceFiles`, { filename: "a.zip" });
      const id = sf.body.data.id;
      const partUrl = new URL((await post("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/parts/1`, {})).body.data.url);
      emu.traffic.log.reset();
      /** Sends the head of a request announcing 100,000 bytes, 1,000 of them, and closes the connection. */
      const hangUp = (method: string, target: string, headers: Record<string, string> = {}) =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect(Number(partUrl.port), partUrl.hostname, () => {
            const head = Object.entries({ host: partUrl.host, "content-length": "100000", ...headers })
              .map(([k, v]) => `${k}: ${v}\r\n`)
              .join("");
            socket.write(`${method} ${target} HTTP/1.1\r\n${head}\r\n`);
            socket.write(Buffer.alloc(1000, 7), () => setTimeout(() => socket.destroy(), 20));
          });
          socket.on("close", () => resolve());
          socket.on("error", reject);
        });
      await hangUp("PUT", partUrl.pathname);
      await hangUp("POST", `/v1/organizations/102/users`, {
        authorization: `Bearer ${emu.keys.orgAdmin}`,
        "content-type": "application/json",
      });
      // Polled for longer than the default second: on a loaded machine the server notices a hang-up
      // later, and not always in the order they were sent (so sorted).
      await expect
        .poll(
          () =>
            emu.traffic.log
              .list()
              .map((e) => `${e.operation} ${e.status}`)
              .sort(),
          { timeout: 15_000 },
        )
        .toEqual(["PostOrganizationUsers 0", "PutSourceFilePart 0"]);
      expect(errors).not.toHaveBeenCalled();
      expect(emu.store.uploads.listParts(db, id)).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });

  it("answers 422 naming the dataset limit, and 403 without upload permission", async () => {
    emu.store.configureUploads({ minPartSize: 1024, datasetLimit: 1 });
    expect((await post("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "the one allowed" })).status).toBe(200);
    const over = await post("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "one too many" });
    expect(over.status).toBe(422);
    expect(over.body.title).toMatch(/dataset limit of 1 datasets per database/);
    // Org admin of the owner, but the database has orgAdminAccess off.
    expect((await post("orgAdmin", `/v1/databases/${db}/datasets`, { name: "x" })).status).toBe(403);
    expect((await post("member", `/v1/databases/${SEEDED.databases.open}/datasets`, { name: "x" })).status).toBe(403);
  });
});
