/** Test files with known content, for uploads. */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Writes `dir/name`: `size` deterministic pseudo-random bytes from `seed` (no two parts of a file
 * alike, so a part sent to the wrong place shows in the SHA1); returns its path, bytes and SHA1.
 */
export function writePatternedFile(dir: string, name: string, size: number, seed = 1): { file: string; bytes: Buffer; sha1: string } {
  const bytes = Buffer.alloc(size);
  let x = seed * 2654435761;
  // Whole 4-byte words; a tail of 1-3 bytes is covered by one last word written over the end.
  for (let i = 0; i < size && size >= 4; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes.writeUInt32LE(x, Math.min(i, size - 4));
  }
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return { file, bytes, sha1: createHash("sha1").update(bytes).digest("hex") };
}
