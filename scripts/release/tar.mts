/**
 * A ustar archive writer for the release's archives: the plugin archive Pulumi unpacks
 * (`pulumi plugin install --file`) and the payload the plugin's executable unpacks itself
 * (launcher.cjs reads exactly this subset: regular files, paths split into prefix and name).
 * Written here rather than by the system's `tar` so the bytes depend only on the files, their
 * modes and one date: the same commit gives the same archives, and the same payload hash.
 */

/** One file of an archive: its path inside it (forward slashes), contents and permission bits. */
export interface TarEntry {
  path: string;
  data: Buffer;
  mode: number;
}

/** A path as ustar's `prefix` (up to 155 bytes) and `name` (up to 100), split at a slash. */
function splitPath(p: string): { prefix: string; name: string } {
  if (Buffer.byteLength(p) <= 100) return { prefix: "", name: p };
  for (let i = p.indexOf("/"); i !== -1; i = p.indexOf("/", i + 1)) {
    const prefix = p.slice(0, i);
    const name = p.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`tar: path too long for a ustar archive: ${p}`);
}

/** The 512-byte header of one regular file. */
function header(entry: TarEntry, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number) => h.write(text, at, "utf8");
  const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, "0") + "\0";
  const { prefix, name } = splitPath(entry.path);
  put(name, 0);
  put(octal(entry.mode & 0o7777, 8), 100);
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(entry.data.length, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148); // the checksum counts its own field as spaces
  put("0", 156); // a regular file
  put("ustar\0", 257);
  put("00", 263);
  put("root", 265);
  put("root", 297);
  put(prefix, 345);
  const sum = h.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

/** The archive of `entries`, in their order, every file dated `mtime` (seconds since 1970). */
export function tarOf(entries: TarEntry[], mtime: number): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    blocks.push(header(entry, mtime), entry.data);
    const pad = (512 - (entry.data.length % 512)) % 512;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(1024)); // two empty blocks end the archive
  return Buffer.concat(blocks);
}
