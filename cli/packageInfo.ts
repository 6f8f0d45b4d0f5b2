/**
 * This package's own package.json, found by walking up from this file: the same code runs from
 * cli/ (tests) and from dist/cli/ (the bin), at different depths.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The fields of package.json the commands read. */
export interface OwnPackage {
  name: string;
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

let cached: OwnPackage | undefined;

let cachedRoot: string | undefined;

/** The folder of pulumi-reviewadmin's package.json; throws if this file is not inside the package. */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, "utf8")) as OwnPackage).name === "pulumi-reviewadmin")
      return (cachedRoot = dir);
    if (path.dirname(dir) === dir) throw new Error(`pulumi-reviewadmin: no package.json of this package above ${__dirname}`);
  }
}

/** pulumi-reviewadmin's package.json; throws if this file is not inside the package. */
export function ownPackage(): OwnPackage {
  return (cached ??= JSON.parse(fs.readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as OwnPackage);
}
