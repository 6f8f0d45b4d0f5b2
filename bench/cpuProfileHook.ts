/**
 * Preloaded into every Node.js process of a profiled step (`NODE_OPTIONS=--require
 * dist/bench/cpuProfileHook.js`, bench/profile.ts) when PROFILE_DIR is set: samples the process's
 * CPU with the inspector and writes `<pid>-<n>.cpuprofile` into PROFILE_DIR at exit, on SIGINT or
 * SIGTERM (how the engine stops a plugin: --cpu-prof alone loses those), and every 10 s (a process
 * killed outright keeps all but its last seconds), with `<pid>.argv` saying which process it was.
 */
import * as fs from "node:fs";
import * as inspector from "node:inspector";
import * as path from "node:path";

const dir = process.env.PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let chunk = 0;
  const start = () => {
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 1000 });
    session.post("Profiler.start");
  };
  // Synchronous under the hood (a connected session answers at once), so it works in an exit handler.
  const dump = () =>
    session.post("Profiler.stop", (err, r) => {
      if (!err && r)
        fs.writeFileSync(path.join(dir, `${process.pid}-${String(chunk++).padStart(4, "0")}.cpuprofile`), JSON.stringify(r.profile));
    });
  start();
  fs.writeFileSync(path.join(dir, `${process.pid}.argv`), process.argv.join(" "));
  setInterval(() => {
    dump();
    start();
  }, 10_000).unref();
  process.on("exit", dump);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      dump();
      // A listener turns off Node's own exit on the signal: where the process has no other, exit as it would have.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.prependListener(signal, onSignal);
  }
}
