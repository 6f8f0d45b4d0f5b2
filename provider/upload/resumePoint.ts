/**
 * Where an upload's source file is remembered between runs, so that a killed `pulumi up` (or
 * script) resumes the same source file and sends only the missing parts, instead of starting a
 * new one and leaving the partial one UPLOADING for good (the API cannot delete it).
 *
 * One small JSON file per upload in `.reviewadmin/uploads/` under the working directory (the
 * program's folder in a Pulumi run), named by a hash of what identifies the upload: the service,
 * the database and dataset, the file's name, size and SHA1. It is written as soon as the source
 * file exists and removed once the upload is complete.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** What identifies one upload of one file. */
export interface UploadIdentity {
  baseUrl: string;
  databaseId: number;
  datasetId: number;
  filename: string;
  size: number;
  sha1: string;
}

/** The resume point of one upload: read, write and clear. */
export interface ResumePoint {
  /** The source file an earlier, unfinished run created, if any. */
  load(): number | undefined;
  save(sourceFileId: number): void;
  clear(): void;
}

/** The folder resume points live in, under `cwd`. */
export function resumeFolder(cwd = process.cwd()): string {
  return path.join(cwd, ".reviewadmin", "uploads");
}

/**
 * The file of one local record (a resume point, an in-flight create) in `folder`: named by a hash
 * of what identifies its object, so the same object always finds the same file.
 */
export function localRecordFile(folder: string, identity: unknown[]): string {
  const key = createHash("sha256").update(JSON.stringify(identity)).digest("hex");
  return path.join(folder, `${key.slice(0, 32)}.json`);
}

/** The resume point of an upload, in `resumeFolder(cwd)`. Failing to write one never fails the upload. */
export function resumePointFor(id: UploadIdentity, cwd?: string): ResumePoint {
  const file = localRecordFile(resumeFolder(cwd), [id.baseUrl, id.databaseId, id.datasetId, id.filename, id.size, id.sha1]);
  return {
    load() {
      try {
        const { sourceFileId } = JSON.parse(fs.readFileSync(file, "utf8")) as { sourceFileId?: unknown };
        return typeof sourceFileId === "number" && Number.isInteger(sourceFileId) && sourceFileId > 0 ? sourceFileId : undefined;
      } catch {
        return undefined;
      }
    },
    save(sourceFileId) {
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify({ sourceFileId, ...id, savedAt: new Date().toISOString() }, null, 2) + "\n");
      } catch {
        // A read-only folder only loses the chance to resume after a killed run.
      }
    },
    clear() {
      fs.rmSync(file, { force: true });
    },
  };
}
