/** Reading a file a user names (a csvPath) without trusting what kind of file it is. */
import * as fs from "node:fs";

/** What a non-regular file system entry is, in words for a message. */
function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return "a named pipe";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  return "not a regular file";
}

/**
 * The bytes of `file`, read only when it is a regular file of at most `maxBytes` bytes: a pipe
 * or a device (/dev/zero) would be read without end, or block the process, before any size
 * check. Reads at most one byte more than the size checked, so a file growing meanwhile is
 * refused rather than read past the limit. Throws
 * `fail(reason)` naming the rule broken; `limit` says where `maxBytes` comes from.
 */
export function readRegularFile(file: string, maxBytes: number, limit: string, fail: (reason: string) => Error): Buffer {
  const check = (st: fs.Stats) => {
    if (!st.isFile()) throw fail(`'${file}' is ${kindOf(st)}, not a regular file: give the path of a CSV file`);
    if (st.size > maxBytes) throw fail(`the file is ${st.size} bytes; ${limit}`);
    return st.size;
  };
  check(fs.statSync(file));
  // O_NONBLOCK: should the path be swapped for a pipe after the check, opening it does not wait for a writer.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const expected = check(fs.fstatSync(fd));
    // One byte more than the size checked: enough to see that the file grew, never more.
    const buf = Buffer.alloc(expected + 1);
    let size = 0;
    while (size < buf.length) {
      const n = fs.readSync(fd, buf, size, buf.length - size, null);
      if (n === 0) break;
      size += n;
    }
    if (size > expected) throw fail(`the file grew past the ${expected} bytes it had while it was read; read it again when it is written`);
    return buf.subarray(0, size);
  } finally {
    fs.closeSync(fd);
  }
}
