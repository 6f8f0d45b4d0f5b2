/**
 * A stand-in for a GitHub Actions runner, for the workflow files of examples/gitops/: it reads a
 * workflow's YAML and runs its jobs as GitHub would, step by step, so that a test sees what a
 * user's first run of the file does.
 *
 * - Jobs in file order, each after the jobs it `needs`; a job's `if:` and a step's `if:` are
 *   evaluated (comparisons of `github` context values, `always()`, `success()`, `failure()`).
 * - `run:` steps: `bash --noprofile --norc -eo pipefail` (GitHub's shell on Linux) in the step's
 *   `working-directory`, with only the environment the YAML gives the workflow, the job and the
 *   step (`${{ secrets.X }}`, `${{ vars.X }}`, `${{ github.token }}` from the tables the test
 *   supplies; an unset one is empty, as on GitHub) and what a runner sets: PATH, a HOME of the job's
 *   own (a fresh runner: no Pulumi login), CI, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY.
 * - `pulumi/actions@v7`: what its source does (src/main.ts, config.ts, login.ts, libs/pr.ts at
 *   v7.0.0), through the Automation API, in actionStandIn.ts.
 * - `actions/upload-artifact` / `actions/download-artifact`: a folder per artifact name.
 * - `actions/checkout`, `actions/setup-node`, `aws-actions/configure-aws-credentials`: skipped,
 *   each saying why (the test gives every job its checkout; Node is this process's, and npm's
 *   cache stands for `cache: npm`; the S3 backend is a folder here).
 *
 * Anything else (another action, an expression or input the stand-in does not know, a `shell:`)
 * fails loudly instead of being ignored.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCommand, runPulumiAction, type Backend, type GithubContext, type PulumiActionRun } from "./actionStandIn";
import { readWorkflow, type WorkflowJob, type WorkflowStep } from "./workflowFile";

/** What the runner is given. */
export interface RunnerOptions {
  secrets: Record<string, string>;
  vars: Record<string, string>;
  backend: Backend;
  /** Folders to put before the system's PATH (the Pulumi CLI's, a stub `gh`). */
  path: string[];
  /** Where artifacts are kept, a sub-folder per name. */
  artifacts: string;
  /** Scratch space: each job's HOME, step summaries, scripts. */
  scratch: string;
  /** npm's cache, which setup-node's `cache: npm` restores on GitHub. */
  npmCache: string;
}

/** What one step did. */
export interface StepRun {
  name: string;
  ran: boolean;
  ok: boolean;
  /** Why it was skipped, or what was done in place of it. */
  note?: string;
  /** Its output (stdout and stderr). */
  output: string;
  /** The environment it got beyond the runner's own (what the YAML gave it). */
  env: Record<string, string>;
  /** What it appended to GITHUB_STEP_SUMMARY. */
  summary: string;
  /** The pulumi/actions step: what the action did. */
  action?: PulumiActionRun;
}

/** What one job did. */
export interface JobRun {
  id: string;
  ran: boolean;
  ok: boolean;
  permissions: unknown;
  environment?: string;
  steps: StepRun[];
}

/** What a workflow run did. */
export interface WorkflowRun {
  file: string;
  ok: boolean;
  jobs: Record<string, JobRun>;
}

/** Per run: the event, and the checkout each job runs in. */
export interface RunOptions {
  github: GithubContext;
  workspaceFor: (job: string) => string;
}

interface Context {
  github: GithubContext;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  jobOk: boolean;
}

/** A context value at a dotted path (`github.event.pull_request.head.repo.full_name`), or undefined. */
function lookup(ctx: Context, dotted: string): unknown {
  const [root, ...rest] = dotted.split(".");
  let v: unknown = root === "github" ? ctx.github : root === "secrets" ? ctx.secrets : root === "vars" ? ctx.vars : undefined;
  if (v === undefined) throw new Error(`the runner stand-in does not know the context '${root}' (in '${dotted}')`);
  for (const key of rest) v = v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** Evaluates an expression: a context path, a quoted string, `a == b`, `always()`, `success()`, `failure()`. */
export function evaluate(expr: string, ctx: Context): unknown {
  const e = expr.trim();
  if (e === "always()") return true;
  if (e === "success()") return ctx.jobOk;
  if (e === "failure()") return !ctx.jobOk;
  const eq = /^(.+?)\s*==\s*(.+)$/.exec(e);
  if (eq) return String(evaluate(eq[1]!, ctx) ?? "") === String(evaluate(eq[2]!, ctx) ?? "");
  const quoted = /^'([^']*)'$/.exec(e);
  if (quoted) return quoted[1];
  if (/^(github|secrets|vars)(\.[\w-]+)+$/.test(e)) {
    const v = lookup(ctx, e);
    // An unset secret or variable is the empty string on GitHub.
    return v ?? (e.startsWith("github.") ? undefined : "");
  }
  throw new Error(`the runner stand-in cannot evaluate the expression '${e}'`);
}

/** A YAML value with every `${{ expr }}` replaced, as a string (GitHub passes inputs and env as strings). */
export function substitute(value: unknown, ctx: Context): string {
  return String(value).replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => String(evaluate(expr, ctx) ?? ""));
}

const substituted = (map: Record<string, unknown> | undefined, ctx: Context) =>
  Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, substitute(v, ctx)]));

/** Copies a folder's files into another, leaving out hidden files as upload-artifact does by default. */
function copyVisible(from: string, to: string): number {
  let files = 0;
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const src = path.join(from, entry.name);
    if (entry.isDirectory()) files += copyVisible(src, path.join(to, entry.name));
    else {
      fs.copyFileSync(src, path.join(to, entry.name));
      files++;
    }
  }
  return files;
}

const hashOf = (file: string) => (fs.existsSync(file) ? createHash("sha256").update(fs.readFileSync(file)).digest("hex") : "");

/**
 * This machine's certificate settings (the CA bundle a proxy's certificate chains to), when it has
 * them: a runner, like a user's shell, trusts what its machine trusts, so npm and Node reach the
 * registry from a job as they do from here. Empty where the machine needs none.
 */
export function machineTrust(): Record<string, string> {
  const names = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "npm_config_cafile"];
  return Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]!]] : [])));
}

/** The runner: runs workflow files one after another; artifacts and the npm ci shortcut persist between runs. */
export class ActionsRunner {
  /** Workspaces `npm ci` ran in, with the package-lock.json it installed. */
  private readonly installed = new Map<string, { lock: string; by: string }>();
  private jobs = 0;

  constructor(private readonly opts: RunnerOptions) {}

  /** Runs every job of the workflow file for the event given. */
  async run(file: string, run: RunOptions): Promise<WorkflowRun> {
    const wf = readWorkflow(file);
    const result: WorkflowRun = { file: path.basename(file), ok: true, jobs: {} };
    for (const [id, job] of Object.entries(wf.jobs)) {
      const ctx: Context = { github: run.github, secrets: this.opts.secrets, vars: this.opts.vars, jobOk: true };
      const needs = typeof job.needs === "string" ? [job.needs] : (job.needs ?? []);
      const permissions = job.permissions ?? wf.permissions;
      const skipped = (note: string): JobRun => ({
        id,
        ran: false,
        ok: true,
        permissions,
        steps: [{ name: "(job)", ran: false, ok: true, note, output: "", env: {}, summary: "" }],
      });
      if (needs.some((n) => !result.jobs[n]?.ran || !result.jobs[n]?.ok)) {
        result.jobs[id] = skipped(`skipped: a job it needs (${needs.join(", ")}) did not succeed`);
        result.ok = false;
        continue;
      }
      if (job.if !== undefined && !evaluate(job.if, ctx)) {
        result.jobs[id] = skipped(`skipped: if: ${job.if}`);
        continue;
      }
      const jobRun = await this.runJob(
        file,
        id,
        job,
        { ...substituted(wf.env, ctx), ...substituted(job.env, ctx) },
        ctx,
        run.workspaceFor(id),
      );
      jobRun.permissions = permissions;
      result.jobs[id] = jobRun;
      if (!jobRun.ok) result.ok = false;
    }
    return result;
  }

  private async runJob(
    file: string,
    id: string,
    job: WorkflowJob,
    jobEnv: Record<string, string>,
    ctx: Context,
    workspace: string,
  ): Promise<JobRun> {
    const jobDir = path.join(this.opts.scratch, `job-${++this.jobs}-${id}`);
    const home = path.join(jobDir, "home");
    fs.mkdirSync(home, { recursive: true });
    const runnerEnv: Record<string, string> = {
      ...machineTrust(),
      PATH: [...this.opts.path, path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
      HOME: home,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: jobDir,
      LANG: "C.UTF-8",
      npm_config_cache: this.opts.npmCache,
      // ~/.pulumi, where the CLI keeps its login, said explicitly: this process's PULUMI_HOME would
      // otherwise reach the Automation API's runs. No update check: there is no network here.
      PULUMI_HOME: path.join(home, ".pulumi"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
    };
    const jobRun: JobRun = {
      id,
      ran: true,
      ok: true,
      permissions: undefined,
      ...(job.environment ? { environment: job.environment } : {}),
      steps: [],
    };
    for (const [i, step] of job.steps.entries()) {
      ctx.jobOk = jobRun.ok;
      const name = step.name ?? step.uses ?? `Run ${step.run?.split("\n")[0]}`;
      const condition = step.if ?? "success()";
      if (!evaluate(condition.replace(/^\$\{\{(.*)\}\}$/, "$1"), ctx)) {
        jobRun.steps.push({ name, ran: false, ok: true, note: `skipped: if: ${condition}`, output: "", env: {}, summary: "" });
        continue;
      }
      if (step.shell !== undefined)
        throw new Error(`${file}: the runner stand-in runs bash only (step '${name}' sets shell: ${step.shell})`);
      const env = { ...jobEnv, ...substituted(step.env, ctx) };
      const summaryFile = path.join(jobDir, `summary-${i}.md`);
      fs.writeFileSync(summaryFile, "");
      const stepEnv = { ...runnerEnv, ...env, GITHUB_STEP_SUMMARY: summaryFile };
      const cwd = path.resolve(workspace, step["working-directory"] ?? ".");
      const stepRun: StepRun =
        step.run !== undefined
          ? await this.runScript(file, substitute(step.run, ctx), cwd, stepEnv, env, name, path.join(jobDir, `step-${i}.sh`))
          : await this.runUses(file, step, ctx, workspace, stepEnv, env, name);
      stepRun.summary = fs.readFileSync(summaryFile, "utf8");
      jobRun.steps.push(stepRun);
      if (!stepRun.ok) jobRun.ok = false;
    }
    return jobRun;
  }

  private async runScript(
    file: string,
    script: string,
    cwd: string,
    stepEnv: Record<string, string>,
    env: Record<string, string>,
    name: string,
    scriptFile: string,
  ): Promise<StepRun> {
    // `npm ci` once per workspace and package-lock.json: the next job in the same checkout would
    // install the same tree again (30 s here), so it is skipped, saying which job installed it.
    if (script.trim() === "npm ci") {
      const lock = hashOf(path.join(cwd, "package-lock.json"));
      const done = this.installed.get(cwd);
      if (done && lock && done.lock === lock && fs.existsSync(path.join(cwd, "node_modules"))) {
        return {
          name,
          ran: false,
          ok: true,
          note: `skipped: npm ci ran in this checkout for ${done.by}, package-lock.json unchanged since`,
          output: "",
          env,
          summary: "",
        };
      }
      const r = await this.bash(script, cwd, stepEnv, scriptFile);
      if (r.ok && lock) this.installed.set(cwd, { lock, by: path.basename(file) });
      return { name, ...r, env, summary: "" };
    }
    // Pulumi Cloud's stack names (acme/...) become the file backend's (organization/...) in scripts too.
    const rewritten = this.opts.backend.rewriteScript(script);
    return { name, ...(await this.bash(rewritten, cwd, this.opts.backend.scriptEnv(stepEnv, env), scriptFile)), env, summary: "" };
  }

  private async bash(
    script: string,
    cwd: string,
    env: Record<string, string>,
    scriptFile: string,
  ): Promise<{ ran: true; ok: boolean; output: string }> {
    fs.writeFileSync(scriptFile, script);
    const r = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", scriptFile], { cwd, env });
    return { ran: true, ok: r.code === 0, output: r.output };
  }

  private async runUses(
    file: string,
    step: WorkflowStep,
    ctx: Context,
    workspace: string,
    stepEnv: Record<string, string>,
    env: Record<string, string>,
    name: string,
  ): Promise<StepRun> {
    const uses = step.uses ?? "";
    const action = uses.replace(/@.*$/, "");
    const inputs = substituted(step.with, ctx);
    const skip = (note: string): StepRun => ({ name, ran: false, ok: true, note, output: "", env, summary: "" });
    switch (action) {
      case "actions/checkout":
        return skip("skipped: the test gives each job its checkout (the workspace)");
      case "actions/setup-node":
        return skip(`skipped: Node ${process.version} runs the job, and npm's cache stands for cache: npm`);
      case "aws-actions/configure-aws-credentials":
        return skip("skipped: no AWS here; the S3 backend is a file:// folder");
      case "pulumi/actions": {
        if (!/^pulumi\/actions@v7(\.|$)/.test(uses)) throw new Error(`${file}: the stand-in does what pulumi/actions@v7 does, not ${uses}`);
        const run = await runPulumiAction(inputs, { env: stepEnv, workspace, github: ctx.github, backend: this.opts.backend });
        return {
          name,
          ran: run.command !== undefined,
          ok: run.failed === undefined,
          note: run.note,
          output: run.log,
          env,
          summary: "",
          action: run,
        };
      }
      case "actions/upload-artifact": {
        const from = path.resolve(workspace, inputs.path ?? "");
        const to = path.join(this.opts.artifacts, inputs.name || "artifact");
        fs.rmSync(to, { recursive: true, force: true });
        const files = fs.existsSync(from) && fs.statSync(from).isDirectory() ? copyVisible(from, to) : 0;
        const missing = files === 0 && inputs["if-no-files-found"] === "error";
        return {
          name,
          ran: true,
          ok: !missing,
          output: missing
            ? `No files were found with the provided path: ${inputs.path}`
            : `uploaded ${files} files as ${path.basename(to)}`,
          env,
          summary: "",
        };
      }
      case "actions/download-artifact": {
        const from = path.join(this.opts.artifacts, inputs.name || "artifact");
        if (!fs.existsSync(from)) return { name, ran: true, ok: false, output: `Artifact not found: ${inputs.name}`, env, summary: "" };
        const files = copyVisible(from, path.resolve(workspace, inputs.path ?? "."));
        return { name, ran: true, ok: true, output: `downloaded ${files} files`, env, summary: "" };
      }
      default:
        throw new Error(`${file}: the runner stand-in does not know the action ${uses}`);
    }
  }
}
