/**
 * One measured upload, run in its own process by bench/upload.ts so that its peak memory
 * (process.resourceUsage().maxRSS) is the upload's alone. Takes a JSON job as argv[2] and prints
 * one JSON line: {wallMs, maxRssBytes, ...}.
 *
 * Modes:
 * - multipart: uploadFile (parts read into at most `concurrency` part-size buffers, SHA1 sent);
 * - single: the same bytes as ONE streamed PUT to the emulator's part URL (a one-part upload,
 *   completed without a SHA1), i.e. the plainest upload the API allows;
 * - discard: one streamed PUT to a plain node:http server that throws the bytes away (the
 *   machine's ceiling for one connection);
 * - idle: loads the same modules and does nothing (Node's own footprint, subtracted from the others).
 */
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";
import { ReviewAdminClient } from "../provider/client";
import { uploadFile } from "../provider/upload/engine";

/** What the parent asks for. */
export interface UploadJob {
  mode: "multipart" | "single" | "discard" | "idle";
  baseUrl: string;
  apiKey: string;
  databaseId: number;
  datasetId: number;
  path: string;
  partSize?: number;
  concurrency?: number;
  /** discard mode: where to PUT. */
  url?: string;
}

/** What the child prints. */
export interface UploadJobResult {
  mode: UploadJob["mode"];
  wallMs: number;
  maxRssBytes: number;
  sourceFileId?: number;
  sha1?: string | null;
  partCount?: number;
  partSize?: number | null;
}

async function run(job: UploadJob): Promise<UploadJobResult> {
  const client = new ReviewAdminClient({ baseUrl: job.baseUrl, apiKey: job.apiKey, timeoutMs: 120_000 });
  const size = fs.statSync(job.path).size;
  const t0 = performance.now();
  let extra: Partial<UploadJobResult> = {};
  switch (job.mode) {
    case "idle":
      break;
    case "multipart": {
      const r = await uploadFile({
        client,
        databaseId: job.databaseId,
        datasetId: job.datasetId,
        path: job.path,
        partSize: job.partSize,
        concurrency: job.concurrency,
      });
      extra = { sourceFileId: r.sourceFileId, sha1: r.sha1, partCount: r.partCount, partSize: r.partSize };
      break;
    }
    case "single": {
      const created = await client.call(
        "PostDatasetFile",
        { databaseId: job.databaseId, datasetId: job.datasetId },
        { filename: "single-put.bin" },
      );
      const { url } = await client.call("PostSourceFilePart", { databaseId: job.databaseId, sourceFileId: created.id, partNumber: 1 });
      const { etag } = await client.putPart(url, fs.createReadStream(job.path, { highWaterMark: 1024 * 1024 }), { size });
      await client.call("PostSourceFile", { databaseId: job.databaseId, sourceFileId: created.id }, { etags: [etag] });
      extra = { sourceFileId: created.id, partCount: 1, partSize: size };
      break;
    }
    case "discard": {
      await client.putPart(job.url!, fs.createReadStream(job.path, { highWaterMark: 1024 * 1024 }), { size });
      extra = { partCount: 1, partSize: size };
      break;
    }
  }
  const wallMs = performance.now() - t0;
  await client.close();
  // maxRSS is in kilobytes (KiB) on Linux.
  return { mode: job.mode, wallMs, maxRssBytes: process.resourceUsage().maxRSS * 1024, ...extra };
}

if (require.main === module) {
  run(JSON.parse(process.argv[2]) as UploadJob).then(
    (r) => process.stdout.write(JSON.stringify(r) + "\n"),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
