/**
 * The output folder of an export: refused when it holds anything and --force was not given
 * (checked before a single request is sent), and written only once everything was read, each
 * file replaced atomically, so a failed export leaves the folder as it was.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../command";

/** Refuses an output path that is a file, or a folder with anything in it unless `force`. */
export function checkOutputFolder(dir: string, force: boolean): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return; // made when writing
  }
  if (!stat.isDirectory()) throw new UsageError(`the output folder ${dir} is a file`);
  if (!force && fs.readdirSync(dir).length > 0) {
    throw new UsageError(
      `the output folder ${dir} exists and is not empty: choose another, or pass --force to rewrite the exported files in it (other files are left as they are)`,
    );
  }
}

/** Writes `files` (name → text or bytes) into `dir`, making it if needed; each file is written to a temporary name and renamed. */
export function writeProject(dir: string, files: Record<string, string | Buffer>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    const target = path.join(dir, name);
    const tmp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, target);
  }
}
