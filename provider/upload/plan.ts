/**
 * The upload rules of the spec ("Upload rules", "Limits") as the client applies them, in one
 * place: part sizes, part counts, file size, the recommended part size, direct links. Both the
 * engine (uploadFile) and the SourceFile resource's plan-time check use these functions, so a
 * plan that passes check is one the engine will send.
 *
 * The spec writes 5MB, 5GB and 5TB without saying whether it means powers of 1000 or 1024. The
 * client takes the reading that is safe under both: the minimum part size as 5 MiB (a part that
 * large is at least 5MB either way), the maximum part and file sizes as decimal 5GB and 5TB (a
 * part or file that large is within the limit either way).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ParameterError } from "../../contract/params";
import { isLoopbackHost } from "../client/security";

/** The limits the client enforces (see the file comment for the reading of MB/GB/TB). */
export const UPLOAD_RULES = {
  /** Every part but the last: at least 5MB (5 MiB, the larger reading). */
  minPartSize: 5 * 1024 * 1024,
  /** Any part: at most 5GB (decimal, the smaller reading). A file up to this size may be one part. */
  maxPartSize: 5_000_000_000,
  /** Parts per file. */
  maxParts: 10_000,
  /** File size: at most 5TB (decimal, the smaller reading). */
  maxFileSize: 5_000_000_000_000,
  /** The recommended part size is never below this (spec, upload rule 5). */
  recommendedMinPartSize: 50_000_000,
} as const;

/** Where uploadFile's options and the resource's inputs name things in errors. */
const OP = "uploadFile";

/** A number with thousands separators, for messages about bytes. */
export function formatBytes(n: number): string {
  return n.toLocaleString("en-US");
}

/** The spec's recommended part size: the larger of 50,000,000 bytes and 1 + size / 10,000. */
export function recommendedPartSize(size: number): number {
  return Math.max(UPLOAD_RULES.recommendedMinPartSize, 1 + Math.floor(size / UPLOAD_RULES.maxParts));
}

/** How a file is cut into parts: parts 1..partCount-1 are partSize bytes, the last one the rest. */
export interface PartPlan {
  size: number;
  partSize: number;
  partCount: number;
}

/** Byte offset (0-based) and length of part `n` (1-based) of a plan. */
export function partRange(plan: PartPlan, n: number): { offset: number; length: number } {
  const offset = (n - 1) * plan.partSize;
  return { offset, length: Math.max(0, Math.min(plan.partSize, plan.size - offset)) };
}

/**
 * Cuts a file of `size` bytes into parts of `partSize` (default: the recommended size). Throws a
 * ParameterError naming `path` (the file is over 5TB) or `partSize` (outside 5MB..5GB when
 * there is more than one part, over 5GB, or more than 10,000 parts). An empty file is one empty part.
 */
export function planParts(size: number, partSize?: number): PartPlan {
  const { minPartSize, maxPartSize, maxParts, maxFileSize } = UPLOAD_RULES;
  if (!Number.isSafeInteger(size) || size < 0) throw new ParameterError("path", `has an unusable size (${size})`, OP);
  if (size > maxFileSize) {
    throw new ParameterError(
      "path",
      `the file is ${formatBytes(size)} bytes; a file may be at most 5TB (${formatBytes(maxFileSize)} bytes)`,
      OP,
    );
  }
  const chosen = partSize ?? recommendedPartSize(size);
  if (!Number.isSafeInteger(chosen) || chosen <= 0) throw new ParameterError("partSize", "must be a positive integer number of bytes", OP);
  if (chosen > maxPartSize) {
    throw new ParameterError("partSize", `must be at most 5GB (${formatBytes(maxPartSize)} bytes), got ${formatBytes(chosen)}`, OP);
  }
  const partCount = Math.max(1, Math.ceil(size / chosen));
  if (partCount > 1 && chosen < minPartSize) {
    throw new ParameterError(
      "partSize",
      `must be at least 5MB (${formatBytes(minPartSize)} bytes) when the file takes more than one part; got ${formatBytes(chosen)}`,
      OP,
    );
  }
  if (partCount > maxParts) {
    throw new ParameterError(
      "partSize",
      `${formatBytes(chosen)} bytes per part cuts this ${formatBytes(size)}-byte file into ${formatBytes(partCount)} parts; ` +
        `at most ${formatBytes(maxParts)} parts are allowed: use at least ${formatBytes(Math.ceil(size / maxParts))} bytes per part ` +
        `or leave partSize out (recommended: ${formatBytes(recommendedPartSize(size))})`,
      OP,
    );
  }
  return { size, partSize: chosen, partCount };
}

/**
 * Checks a direct link (spec, upload rule 7): an absolute https URL with a host and no
 * user:password part (credentials belong in a pre-signed query). Plain http is accepted only for
 * loopback hosts, the same rule as the client's base URL, so tests can serve files locally.
 * Throws a ParameterError naming `directLink`; the message never shows the query (it may be a
 * signature).
 */
export function checkDirectLink(link: string): URL {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new ParameterError("directLink", "must be an absolute URL (https://...)", OP);
  }
  if (url.username || url.password) {
    throw new ParameterError(
      "directLink",
      "must not contain a user name or password; use a link whose query carries its own authorization (a pre-signed URL)",
      OP,
    );
  }
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      throw new ParameterError(
        "directLink",
        `uses plain http to ${url.host}; it must use https (plain http is accepted only for 127.0.0.0/8, localhost and [::1])`,
        OP,
      );
    }
  } else if (url.protocol !== "https:") {
    throw new ParameterError("directLink", `must use https (got ${url.protocol.replace(/:$/, "")})`, OP);
  }
  if (!url.hostname) throw new ParameterError("directLink", "must name a host", OP);
  return url;
}

/** A link for messages: origin and path, never the query (a pre-signed URL's signature). */
export function describeLink(link: string): string {
  try {
    const url = new URL(link);
    return url.origin + url.pathname + (url.search ? "?…" : "");
  } catch {
    return "(not a URL)";
  }
}

/** The file name a source file gets when none is given: the path's base name, or the link's last path segment. */
export function defaultFilename(source: { path?: string; directLink?: string }): string | undefined {
  if (source.path !== undefined) return path.basename(source.path) || undefined;
  if (source.directLink !== undefined) {
    try {
      const last = new URL(source.directLink).pathname.split("/").pop() ?? "";
      return decodeURIComponent(last) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** SHA1 (hex) of a file, read as a stream in 4 MiB chunks: memory stays small whatever the size. */
export async function sha1OfFile(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha1");
  const stream = fs.createReadStream(file, { highWaterMark: 4 * 1024 * 1024, signal });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * What identifies a file's content without reading it: size, modification and change times
 * (nanoseconds), inode and device. Equal stamps let a plan reuse the SHA1 computed last time;
 * any write changes the change time, so an edited file is always hashed again.
 */
export function fileStamp(file: string): string {
  const st = fs.statSync(file, { bigint: true });
  return [st.size, st.mtimeNs, st.ctimeNs, st.ino, st.dev].join(":");
}
