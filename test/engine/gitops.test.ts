/**
 * The GitOps workflow files of examples/gitops/ on their first run: each is read from its YAML and
 * run as GitHub Actions would run it (test/support/actionsRunner.ts: `run:` steps in bash with the
 * environment the YAML gives, `pulumi/actions@v7` as its source does it through the Automation
 * API), against the emulator, in a repository set up as docs/gitops.md §1 says: `pulumi-reviewadmin
 * export --out access`, the package installed from its release tarball in vendor/, the stack made,
 * its first up adopting everything with 0 writes, all committed. One workspace and one backend
 * serve every file, in the order a user meets them: a pull request's preview, the up on merge (and
 * its self-managed twin), the morning drift check before and after a change made in the web
 * application, the daily expiry up, the monthly review with its pull request.
 *
 * Backends (there is no Pulumi Cloud and no S3 here): a file:// folder stands for both. Pulumi
 * Cloud's stack acme/access/prod runs there as organization/access/prod (a DIY backend refuses any
 * other organization; the project and stack parts, where the real bug was, stay as written), with a
 * passphrase in place of Pulumi Cloud's own secrets; up-self-managed.yml's `cloud-url: s3://...`
 * becomes the folder. `git push` goes to a bare repository in a temporary folder, and `gh` is a
 * stub on PATH that records its arguments.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarball, repoRoot, writesIn } from "../../bench/exportedProject";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { Backend, MAX_CHARACTER_COMMENT, runCommand, runPulumiAction, type GithubContext } from "../support/actionStandIn";
import { ActionsRunner, type JobRun, type WorkflowRun } from "../support/actionsRunner";
import { control } from "../support/emulatorHttp";
import { noEngine, skipWithoutEngine } from "../support/engine";
import { ORDERED } from "../support/scenario";

skipWithoutEngine("test/engine/gitops.test.ts");

const FILES = path.join(repoRoot, "examples", "gitops");
const PASSPHRASE = "correct horse battery staple";
const PACK = "reviewadmin-access-guardrails";
const GITHUB_TOKEN = "ghs_the-jobs-github-token";
const MARGARET = SEEDED.users.multiOrgMember; // DB_UPLOAD on 2001 in the seeded world
const DB = SEEDED.databases.open;
// Variables the jobs are given by their YAML only: none may come from the test process.
const SCRUBBED = ["REVIEWADMIN_API_KEY", "REVIEWADMIN_BASE_URL", "PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_BACKEND_URL"];

let emu: RunningEmulator;
let root = "";
let ws = ""; // GITHUB_WORKSPACE: the repository's checkout
let origin = ""; // the bare repository standing for GitHub's
let ghRecord = "";
let runner: ActionsRunner;
const savedEnv: Record<string, string | undefined> = {};

const event = (event_name: string, ref: string, payload: Record<string, unknown> = {}): GithubContext => ({
  token: GITHUB_TOKEN,
  repository: "acme/access",
  ref,
  event_name,
  event: payload,
});
const pullRequest = (headRepo = "acme/access") =>
  event("pull_request", "refs/pull/7/merge", { pull_request: { number: 7, head: { repo: { full_name: headRepo } } } });
const onMain = (name: "push" | "schedule") => event(name, "refs/heads/main");

/** A command at the user's shell in `cwd`, with the environment docs/gitops.md §1 exports. */
async function sh(cwd: string, cmd: string, ...args: string[]): Promise<string> {
  const home = path.join(root, "user-home");
  const r = await runCommand(cmd, args, {
    cwd,
    env: {
      PATH: process.env.PATH!,
      HOME: home,
      PULUMI_HOME: path.join(home, ".pulumi"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      npm_config_cache: npmCache(),
      REVIEWADMIN_BASE_URL: emu.url,
      REVIEWADMIN_API_KEY: emu.keys.orgAdmin!,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      GIT_AUTHOR_NAME: "Ada Lovelace",
      GIT_AUTHOR_EMAIL: "ada@northwind.example",
      GIT_COMMITTER_NAME: "Ada Lovelace",
      GIT_COMMITTER_EMAIL: "ada@northwind.example",
    },
  });
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code}: ${r.output}`);
  return r.output;
}

const npmCache = () => process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");

/** Runs a workflow file of examples/gitops/; every job in the workspace unless `workspaceFor` says otherwise. */
function runWorkflow(file: string, github: GithubContext, workspaceFor: (job: string) => string = () => ws): Promise<WorkflowRun> {
  return runner.run(path.join(FILES, file), { github, workspaceFor });
}

/** A job's one pulumi/actions step. */
function actionOf(job: JobRun) {
  const step = job.steps.find((s) => s.action?.command);
  expect(step, `${job.id} runs pulumi/actions with a command`).toBeDefined();
  return step!.action!;
}

/** Everything a job printed, for failure messages. */
const transcript = (run: WorkflowRun) =>
  Object.values(run.jobs)
    .flatMap((j) => j.steps.map((s) => `--- ${j.id}: ${s.name} (${s.ran ? (s.ok ? "ok" : "FAILED") : s.note})\n${s.output}`))
    .join("\n");

/** Commits the working tree's change on the current branch (a merged pull request when on main), and pushes it. */
async function commit(message: string): Promise<void> {
  await sh(ws, "git", "commit", "-qam", message);
  await sh(ws, "git", "push", "-q", "origin", "HEAD");
}

/** Rewrites one line of access/access.ts, as a pull request would. */
function editAccess(from: string, to: string): void {
  const file = path.join(ws, "access", "access.ts");
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, to));
}

const permissionsOf = (email: string) =>
  emu.store.findMembership(SEEDED.org, emu.store.findUserByEmail(email)!.id)?.permissions.slice().sort();

beforeAll(async () => {
  if (noEngine) return;
  for (const name of SCRUBBED) {
    savedEnv[name] = process.env[name];
    delete process.env[name];
  }
  emu = await startEmulator({ rateLimit: 0 });
  root = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-gitops-"));
  ws = path.join(root, "repo");
  origin = path.join(root, "origin.git");
  fs.mkdirSync(ws);
  // `gh` on the runner: a stub that records what it was asked and with which token.
  const bin = path.join(root, "bin");
  ghRecord = path.join(root, "gh-calls.txt");
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "gh"),
    `#!/usr/bin/env bash\n# A stand-in for the GitHub CLI: records its arguments and its token, one per line.\n{ printf '%s\\n' "$@"; echo "GH_TOKEN=\${GH_TOKEN:-}"; echo "--"; } >> ${JSON.stringify(ghRecord)}\necho "https://github.com/acme/access/pull/8"\n`,
    { mode: 0o755 },
  );
  runner = new ActionsRunner({
    secrets: {
      REVIEWADMIN_API_KEY: emu.keys.orgAdmin!,
      PULUMI_ACCESS_TOKEN: "pul-a-pulumi-cloud-token", // unused: the backend is a folder
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    },
    vars: {
      REVIEWADMIN_BASE_URL: emu.url,
      FIRM_DOMAIN: "northwind.example",
      PULUMI_STATE_BUCKET: "acme-pulumi-state",
      PULUMI_STATE_ROLE_ARN: "arn:aws:iam::123456789012:role/pulumi-state",
      AWS_REGION: "eu-west-1",
    },
    backend: new Backend(`file://${path.join(root, "state")}`, PASSPHRASE, "acme"),
    path: [bin, path.dirname(execPathOf("pulumi"))],
    artifacts: path.join(root, "artifacts"),
    scratch: path.join(root, "runner"),
    npmCache: npmCache(),
  });
  fs.mkdirSync(path.join(root, "state"));
});

afterAll(async () => {
  await emu?.close();
  for (const [name, value] of Object.entries(savedEnv)) if (value !== undefined) process.env[name] = value;
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Where a command is on this process's PATH. */
function execPathOf(cmd: string): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, cmd))) return path.join(dir, cmd);
  }
  throw new Error(`${cmd} is not on PATH`);
}

describe("examples/gitops on their first run, as GitHub Actions runs them", ORDERED, () => {
  it("docs/gitops.md §1: export --out access (project access), the tarball in vendor/, the stack adopted with 0 writes, committed", async () => {
    await sh(ws, process.execPath, path.join(repoRoot, "dist", "cli", "main.js"), "export", "--out", "access");
    const access = path.join(ws, "access");
    expect(fs.readFileSync(path.join(access, "Pulumi.yaml"), "utf8")).toMatch(/^name: access\n/);
    fs.mkdirSync(path.join(access, "vendor"));
    const tarball = path.join("vendor", path.basename(packedTarball()));
    fs.copyFileSync(packedTarball(), path.join(access, tarball));
    await sh(access, "npm", "install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`);

    await sh(access, "pulumi", "login", `file://${path.join(root, "state")}`);
    // The stack of docs/gitops.md on a file backend: its organization must be `organization`.
    await expect(sh(access, "pulumi", "stack", "init", "acme/access/prod")).rejects.toThrow(/organization name must be 'organization'/);
    await sh(access, "pulumi", "stack", "init", "organization/access/prod");
    await sh(access, "pulumi", "config", "set", "reviewadmin:baseUrl", emu.url);
    emu.traffic.log.reset();
    expect(await sh(access, "pulumi", "up", "--yes", "--non-interactive")).toMatch(/adopted 8 people already there/);
    expect(writesIn(emu.traffic.log.counters.byOperation)).toEqual({});
    // (§1's `pulumi preview --refresh --expect-no-changes` is what drift.yml runs: its first run below.)

    await sh(ws, "git", "init", "-q", "-b", "main");
    await sh(ws, "git", "add", ".");
    await sh(ws, "git", "commit", "-qm", "Access of Northwind Legal, as exported");
    await sh(root, "git", "init", "-q", "--bare", origin);
    await sh(ws, "git", "remote", "add", "origin", origin);
    await sh(ws, "git", "push", "-q", "origin", "main");
    // Committed as the exported README says, so that every job's `npm ci` installs the tarball.
    const committed = (await sh(ws, "git", "ls-files", "access")).split("\n");
    expect(committed).toEqual(expect.arrayContaining(["access/package-lock.json", "access/Pulumi.prod.yaml", `access/${tarball}`]));
  }, 300_000);

  it("preview.yml on a pull request: npm ci, the policy pack loads from work-dir, the preview passes, the comment holds it whole", async () => {
    await sh(ws, "git", "switch", "-q", "-c", "ken-legal-hold");
    editAccess(`permissions: ["AI_ADMIN"]`, `permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"]`);
    await commit("Ken holds legal holds too");
    emu.traffic.log.reset();
    const run = await runWorkflow("preview.yml", pullRequest());
    expect(run.ok, transcript(run)).toBe(true);
    const job = run.jobs.preview!;
    expect(job.steps.map((s) => [s.name, s.ran])).toEqual([
      ["actions/checkout@v7", false],
      ["actions/setup-node@v7", false],
      ["Run npm ci", true],
      ["pulumi/actions@v7", true],
    ]);
    const action = actionOf(job);
    expect(action.stackName).toBe("organization/access/prod");
    expect(action.options).toMatchObject({
      refresh: true,
      diff: true,
      policyPacks: ["node_modules/pulumi-reviewadmin/policy"],
      suppressOutputs: true,
    });
    // What the action posts as the pull request's comment: the change, the summary, the pack that ran.
    const comment = action.comment!;
    expect(comment.heading).toBe("#### :tropical_drink: `preview` on access/acme/access/prod");
    expect(comment.trimmed).toBe(false);
    expect(comment.message.length).toBeLessThan(MAX_CHARACTER_COMMENT);
    expect(comment.message).toMatch(/~ ken@northwind\.example/);
    expect(comment.message).toMatch(/\+ \[1\]: "LEGAL_HOLD_ADMIN"/);
    expect(comment.message).toMatch(/~ 1 to update/);
    expect(comment.message).toContain(`${PACK}|local|node_modules/pulumi-reviewadmin/policy`);
    expect(writesIn(emu.traffic.log.counters.byOperation)).toEqual({});
    expect(permissionsOf("ken@northwind.example")).toEqual(["AI_ADMIN"]);

    // A pull request from a fork gets no job, and so no secret.
    const fork = await runWorkflow("preview.yml", pullRequest("mallory/access"));
    expect(fork.jobs.preview).toMatchObject({ ran: false });
  });

  it("the policy pack path the files had (access/node_modules/...) fails the same step: the action runs the CLI in work-dir", async () => {
    const run = await runPulumiAction(
      {
        command: "preview",
        "stack-name": "acme/access/prod",
        "work-dir": "access",
        policyPacks: "access/node_modules/pulumi-reviewadmin/policy",
      },
      {
        env: {
          PATH: process.env.PATH!,
          HOME: path.join(root, "user-home"),
          PULUMI_HOME: path.join(root, "user-home", ".pulumi"),
          PULUMI_SKIP_UPDATE_CHECK: "true",
        },
        workspace: ws,
        github: pullRequest(),
        backend: new Backend(`file://${path.join(root, "state")}`, PASSPHRASE, "acme"),
      },
    );
    expect(run.failed).toMatch(/failed to load Pulumi policy project located at "access\/node_modules\/pulumi-reviewadmin\/policy"/);
  });

  it("up.yml on the merge to main: the pull request's change is applied, with continue-on-error", async () => {
    await sh(ws, "git", "switch", "-q", "main");
    await sh(ws, "git", "merge", "-q", "--ff-only", "ken-legal-hold");
    await sh(ws, "git", "push", "-q", "origin", "main");
    const run = await runWorkflow("up.yml", onMain("push"));
    expect(run.ok, transcript(run)).toBe(true);
    const action = actionOf(run.jobs.up!);
    expect(action.options).toMatchObject({ refresh: true, continueOnError: true, policyPacks: ["node_modules/pulumi-reviewadmin/policy"] });
    expect(action.log).toContain(`${PACK}|local|node_modules/pulumi-reviewadmin/policy`);
    expect(permissionsOf("ken@northwind.example")).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);
    // suppress-outputs: the stack has outputs (notInAccessFile lists emails), and the log does not print them.
    expect(Object.keys(action.outputs ?? {})).toContain("notInAccessFile");
    expect(action.stdout).not.toMatch(/^Outputs:/m);
  });

  it("up-self-managed.yml: the same up on the self-managed backend (s3:// as a folder), passphrase from its secret", async () => {
    editAccess(`${MARGARET}: ["DB_UPLOAD"]`, `${MARGARET}: ["DB_DELETE", "DB_UPLOAD"]`);
    await commit("Margaret may delete documents in Northwind v. Contoso");
    const run = await runWorkflow("up-self-managed.yml", onMain("push"));
    expect(run.ok, transcript(run)).toBe(true);
    const job = run.jobs.up!;
    expect(job.steps.find((s) => s.name.startsWith("aws-actions/configure-aws-credentials@v6"))?.note).toMatch(/file:\/\/ folder/);
    const action = actionOf(job);
    expect(action.stackName).toBe("organization/access/prod");
    expect(job.steps.find((s) => s.action)?.env.PULUMI_CONFIG_PASSPHRASE).toBe(PASSPHRASE);
    expect(emu.store.findDatabaseUser(DB, MARGARET)?.permissions.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);
  });

  it("drift.yml: passes without drift; after a change in the web application it fails, and still prints what expires", async () => {
    const clean = await runWorkflow("drift.yml", onMain("schedule"));
    expect(clean.ok, transcript(clean)).toBe(true);
    expect(clean.jobs.drift!.steps.at(-1)).toMatchObject({ name: "Access expiring this week", ran: true, ok: true });

    // Someone removes Margaret's grant in the web application.
    expect((await control(emu.url, "DELETE", `/databases/${DB}/users/${MARGARET}`)).status).toBe(204);
    const drifted = await runWorkflow("drift.yml", onMain("schedule"));
    expect(drifted.ok).toBe(false);
    const job = drifted.jobs.drift!;
    const action = actionOf(job);
    expect(action.failed).toMatch(/no changes were expected/i);
    expect(action.log).toMatch(/database-2001/);
    // if: always(): the list of what expires runs after the failed check, logged in by the action.
    expect(job.steps.at(-1)).toMatchObject({ name: "Access expiring this week", ran: true, ok: true });
    expect(emu.store.findDatabaseUser(DB, MARGARET)).toBeUndefined(); // a preview writes nothing
  });

  it("expire.yml: the daily up on main runs, and puts back what the web application took away", async () => {
    const elsewhere = await runWorkflow("expire.yml", event("workflow_dispatch", "refs/heads/feature"));
    expect(elsewhere.jobs.expire).toMatchObject({ ran: false });
    const run = await runWorkflow("expire.yml", onMain("schedule"));
    expect(run.ok, transcript(run)).toBe(true);
    expect(actionOf(run.jobs.expire!).options).toMatchObject({ refresh: true, continueOnError: true });
    expect(emu.store.findDatabaseUser(DB, MARGARET)?.permissions.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);
  });

  it("review.yml: the packet job holds the key and writes the packet; the pull-request job has no key, commits it and opens the pull request", async () => {
    // The second job runs on a runner of its own: a fresh checkout of main, no node_modules.
    const fresh = path.join(root, "pr-checkout");
    await sh(root, "git", "clone", "-q", origin, fresh);
    const run = await runWorkflow("review.yml", onMain("schedule"), (job) => (job === "packet" ? ws : fresh));
    expect(run.ok, transcript(run)).toBe(true);
    const packet = run.jobs.packet!;
    const pr = run.jobs["pull-request"]!;

    expect(packet.permissions).toEqual({ contents: "read" });
    const write = packet.steps.find((s) => s.name === "Write the review packet")!;
    expect(write.env.REVIEWADMIN_API_KEY).toBe(emu.keys.orgAdmin);
    for (const f of ["review.md", "review.csv", "review.json"]) expect(fs.existsSync(path.join(ws, "access-review", f))).toBe(true);
    const md = fs.readFileSync(path.join(ws, "access-review", "review.md"), "utf8");
    expect(md).toContain("margaret@northwind.example");
    // Judged against the stack's code (read with `pulumi stack export` from the backend) and the firm's domain.
    expect(md).toMatch(/Judged against the code of [^\n]*organization\/access\/prod/);
    expect(md).toContain("(firm domains: northwind.example)");

    expect(pr.permissions).toEqual({ contents: "write", "pull-requests": "write" });
    for (const step of pr.steps) {
      for (const name of ["REVIEWADMIN_API_KEY", "PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE"])
        expect(step.env[name], `${step.name}: ${name}`).toBeUndefined();
    }
    const month = new Date().toISOString().slice(0, 7);
    const branch = `access-review/${month}`;
    expect(await sh(origin, "git", "show", `${branch}:access-review/review.md`)).toBe(md);
    const gh = fs.readFileSync(ghRecord, "utf8");
    expect(gh.split("\n").slice(0, 5)).toEqual(["pr", "create", "--head", branch, "--title"]);
    expect(gh).toContain(`GH_TOKEN=${GITHUB_TOKEN}`);
  });
});
