/**
 * Programs given as a path: the index of an example folder (or a file), evaluated anew on every
 * run (see docs/harness.md, "Programs given as a path").
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { isObject } from "../wire";

/** A Pulumi program as a function returning the stack exports. */
export type ProgramFn = () => Promise<Record<string, any> | void> | Record<string, any> | void;

/** A Pulumi program: a function, or the path of a folder (its index) or of a file. */
export type Program = ProgramFn | string;

function resolveProgramFile(p: string): string {
  const abs = path.resolve(p);
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) {
    for (const f of ["index.ts", "index.mts", "index.js", "index.cjs", "index.mjs"]) {
      const file = path.join(abs, f);
      if (fs.existsSync(file)) return file;
    }
    throw new Error(`no index.ts/index.js in ${abs}`);
  }
  if (!fs.existsSync(abs)) throw new Error(`program not found: ${abs}`);
  return abs;
}

let loadCounter = 0;

/**
 * The program at `p` as a function that evaluates the file anew on each call: `.ts` through
 * `import(url?run=N)` (vitest keys modules by URL, query included), `.js`/`.cjs` through `require`
 * after dropping it from the require cache. Its exports are the stack outputs; a default-exported
 * function is called instead and its result used, as the Pulumi Node.js host does.
 */
export function programFromPath(p: string): ProgramFn {
  const file = resolveProgramFile(p);
  return async () => {
    let mod: any;
    if (/\.c?js$/.test(file)) {
      const req = createRequire(file);
      delete req.cache[file];
      mod = req(file);
    } else {
      mod = await import(/* @vite-ignore */ `${pathToFileURL(file).href}?run=${++loadCounter}`);
    }
    if (typeof mod === "function") return await mod();
    if (mod && typeof mod.default === "function") return await mod.default();
    const keys = Object.keys(mod ?? {}).filter((k) => k !== "default" && k !== "__esModule" && k !== "module.exports");
    // A CommonJS module seen through import(): its exports are the default.
    if (keys.length === 0 && isObject(mod?.default)) return { ...mod.default };
    return Object.fromEntries(keys.map((k) => [k, mod[k]]));
  };
}
