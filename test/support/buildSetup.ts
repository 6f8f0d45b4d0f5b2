/**
 * Vitest global setup of the engine tier: dist/ as the sources are now, before any file runs. The
 * compiled bins, the policy pack and the plugin the engine starts all run from dist/;
 * `scripts/build.js --if-stale` builds only when a source is newer than the last build (a fraction
 * of a second otherwise).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

export default function setup(): void {
  const root = path.resolve(__dirname, "../..");
  const r = spawnSync(process.execPath, [path.join(root, "scripts/build.js"), "--if-stale"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`node scripts/build.js --if-stale failed (exit code ${r.status ?? r.signal})`);
}
