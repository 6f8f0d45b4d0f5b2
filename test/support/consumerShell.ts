/**
 * A user's shell in a folder of the test's own, for the README runner (test/engine/readme.test.ts):
 * commands and whole shell scripts run with a local file backend and the answers a user would type
 * given in advance, and a long-running command (the emulator) kept in the background. Everything
 * runs asynchronously: the emulator the commands talk to answers from this process, so a blocking
 * spawn would starve it.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** What a command left: its exit code and its stdout and stderr, interleaved as they came. */
export interface ShellResult {
  code: number | null;
  out: string;
}

/** Options of one command. */
export interface RunOptions {
  /** The folder it runs in. */
  cwd: string;
  /** What the user types (e.g. a key at `read -rs`); stdin is closed after it. */
  stdin?: string;
  /** More environment, e.g. `{ PULUMI_STACK: ... }`. */
  env?: Record<string, string>;
}

/** A command left running, until stop(). */
export interface Background {
  /** Its output so far. */
  out(): string;
  /** Ctrl-C (SIGINT to its process group, which only it and its children are in); resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** The shell of a user working under `root`, whose Pulumi state lives in `root/.state`. */
export class ConsumerShell {
  readonly backend: string;

  constructor(readonly root: string) {
    this.backend = path.join(root, ".state");
    fs.mkdirSync(this.backend, { recursive: true });
  }

  /**
   * The environment of every command: the user's, with no REVIEWADMIN_* setting (only what a
   * README line sets counts), a local file backend (what `pulumi login --local` gives, without
   * touching ~/.pulumi), and the answers a user types at a terminal given in advance: the stack's
   * passphrase, and "yes" at `pulumi up`'s confirmation. npm prefers its cache (the same packages).
   */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("REVIEWADMIN_")) delete env[k];
    return {
      ...env,
      PULUMI_BACKEND_URL: `file://${this.backend}`,
      PULUMI_CONFIG_PASSPHRASE: "the passphrase a user types",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      npm_config_prefer_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      ...extra,
    };
  }

  /** Runs `cmd args` and resolves when it exits. */
  run(cmd: string, args: string[], opts: RunOptions): Promise<ShellResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, { cwd: opts.cwd, env: this.env(opts.env) });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, out }));
      child.stdin.end(opts.stdin ?? "");
    });
  }

  /** Runs a script as bash does a pasted block, except that the first failing line stops it (-e, pipefail). */
  bash(script: string, opts: RunOptions): Promise<ShellResult> {
    return this.run("bash", ["-e", "-o", "pipefail", "-c", script], opts);
  }

  /** Starts `command` (a bash line) in the background; resolves once its output matches `ready`. */
  background(command: string, opts: RunOptions & { ready: RegExp }): Promise<Background> {
    return new Promise((resolve, reject) => {
      const child = spawn("bash", ["-c", command], { cwd: opts.cwd, env: this.env(opts.env), detached: true });
      let out = "";
      let started = false;
      const exited = new Promise<number | null>((res) => child.on("close", (code) => res(code)));
      const onData = (d: Buffer) => {
        out += d;
        if (!started && opts.ready.test(out)) {
          started = true;
          resolve({
            out: () => out,
            stop: () => {
              process.kill(-child.pid!, "SIGINT");
              return exited;
            },
          });
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("error", reject);
      void exited.then((code) => {
        if (!started) reject(new Error(`${command} exited (${code}) before it was ready:\n${out}`));
      });
    });
  }
}
