/**
 * A firm's month with the GitOps workflow files of examples/gitops/, at firm scale: organization 102
 * with 2,007 members and 202 databases, the emulator at the service's 25 requests/s. Each file is
 * read from its YAML and run as GitHub Actions would run it (test/support/actionsRunner.ts: `run:`
 * steps in bash with the environment the YAML gives, `pulumi/actions@v7` as its source does it
 * through the Automation API), in a repository set up as docs/gitops.md §1 says: `pulumi-reviewadmin
 * export --out access`, the package installed from its release tarball in vendor/, the stack made,
 * its first up adopting everything with 0 writes, all committed. Then, in the order a firm meets
 * them: a pull request changing one person and adding one (its preview comment is the access
 * review: a few lines naming both, whatever the roster's size and the number of databases
 * refreshed; the up writes for them only), the self-managed up, the morning drift check before and
 * after changes made in the web application (a new org admin nobody declared fails it, named with
 * who made them one; the repair up repairs the rest and fails naming them), the pull request
 * accepting them (stored; every job clean after), an expiry day, the monthly review with its pull
 * request, and a reviewer's sign-off (a spreadsheet saved in a continental locale) removing two
 * people, gone after the up.
 *
 * Backends (there is no Pulumi Cloud and no S3 here): a file:// folder stands for both. Pulumi
 * Cloud's stack acme/access/prod runs there as organization/access/prod (a DIY backend refuses any
 * other organization; the project and stack parts, where the real bug was, stay as written), with a
 * passphrase in place of Pulumi Cloud's own secrets; up-self-managed.yml's `cloud-url: s3://...`
 * becomes the folder. `git push` goes to a bare repository in a temporary folder, and `gh` is a
 * stub on PATH that records its arguments and the comments it is given (support/ghStub.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarball, repoRoot, writesIn } from "../../bench/exportedProject";
import { unpackProps } from "../../contract/packed";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { Backend, MAX_CHARACTER_COMMENT, runCommand, runPulumiAction, type GithubContext } from "../support/actionStandIn";
import { writeGhStub, type GhStub } from "../support/ghStub";
import { ActionsRunner, machineTrust, type JobRun, type WorkflowRun } from "../support/actionsRunner";
import { control } from "../support/emulatorHttp";
import { noEngine, skipWithoutEngine } from "../support/engine";
import { ORDERED } from "../support/scenario";

skipWithoutEngine("test/engine/gitops.test.ts");

const FILES = path.join(repoRoot, "examples", "gitops");
const PASSPHRASE = "correct horse battery staple";
const PACK = "reviewadmin-access-guardrails";
const GITHUB_TOKEN = "ghs_the-jobs-github-token";
const MARGARET = SEEDED.users.multiOrgMember; // DB_UPLOAD on 2001 in the seeded world
const DAY = 86_400_000;
/** A day by the service's clock, `n` days from now (YYYY-MM-DD). */
const dayIn = (n: number) => new Date(emu.store.clock.now() + n * DAY).toISOString().slice(0, 10);
/** Who the pull request adds, with an end date; and who made someone an org admin in the web application. */
const NEWCOMER = "joan.newcomer@northwind.example";
const MALLORY = "mallory@evil.example";
const DB = SEEDED.databases.open;
/** This month's packet folder, as review.yml names it (`date -u +%Y-%m`). */
const packetDir = () => `access-review/${new Date().toISOString().slice(0, 7)}`;
// Variables the jobs are given by their YAML only: none may come from the test process.
const SCRUBBED = ["REVIEWADMIN_API_KEY", "REVIEWADMIN_BASE_URL", "PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_BACKEND_URL"];

let emu: RunningEmulator;
let root = "";
let ws = ""; // GITHUB_WORKSPACE: the repository's checkout
let origin = ""; // the bare repository standing for GitHub's
let gh: GhStub;
let runner: ActionsRunner;
const savedEnv: Record<string, string | undefined> = {};
/** The stack the workflows name (docs/gitops.md): the project `export --out access` writes. */
const STACK = "organization/access/prod";

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
      ...machineTrust(),
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

/** Merges the pull request's branch into main (fast-forward) and pushes it. */
async function merge(branch: string): Promise<void> {
  await sh(ws, "git", "switch", "-q", "main");
  await sh(ws, "git", "merge", "-q", "--ff-only", branch);
  await sh(ws, "git", "push", "-q", "origin", "main");
}

/** Rewrites one line of access/access.ts, as a pull request would. */
function editAccess(from: string, to: string): void {
  const file = path.join(ws, "access", "access.ts");
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, to));
}

const permissionsOf = (email: string) =>
  emu.store.members.find(SEEDED.org, emu.store.users.findByEmail(email)!.id)?.permissions.slice().sort();

beforeAll(async () => {
  if (noEngine) return;
  for (const name of SCRUBBED) {
    savedEnv[name] = process.env[name];
    delete process.env[name];
  }
  // A firm's size, at the service's rate limit: 2,000 members beside the seeded 7, and 200 (empty)
  // databases beside the seeded 2 of 102: every refresh reads each one, and the comment must not grow with them.
  emu = await startEmulator({ rateLimit: 25, scale: { members: 2000, databases: 200 } });
  root = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-gitops-"));
  ws = path.join(root, "repo");
  origin = path.join(root, "origin.git");
  fs.mkdirSync(ws);
  // `gh` on the runner: a stub that records what it was asked, with which token, and the comments.
  gh = writeGhStub(path.join(root, "gh"));
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
    path: [gh.bin, path.dirname(execPathOf("pulumi"))],
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

/** The part of a preview's output the resources said: its "Diagnostics:" section. */
const diagnosticsOf = (output: string) => output.slice(output.indexOf("Diagnostics:"));

/** Write requests since `emu.traffic.log.reset()`, by operation. */
const writes = () => writesIn(emu.traffic.log.counters.byOperation);

/** The stack's resources as `pulumi stack export` shows them. */
async function stackExport(): Promise<{ urn: string; type: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[]> {
  return JSON.parse(await sh(path.join(ws, "access"), "pulumi", "stack", "export", "--stack", STACK)).deployment.resources;
}

/** The stored outputs of the stack's resource named `name`, as `pulumi stack export` shows them. */
async function stackOutputsOf(name: string): Promise<Record<string, unknown>> {
  const resource = (await stackExport()).find((r) => r.urn.endsWith(`::${name}`));
  // A large roster's maps are deflated text in the state (contract/packed.ts).
  return unpackProps(resource!.type.split(":").pop()!, resource!.outputs);
}

/** A reviewer's sign-off: review.csv with `decisions` filled in, saved as a spreadsheet in a continental locale does (`;`, BOM, CRLF). */
function continentalSignoff(decisions: { person: string; scope: string; why: string }[]): string {
  const [header, ...rows] = parse(fs.readFileSync(path.join(ws, packetDir(), "review.csv"), "utf8"), {
    relax_column_count: true,
  }) as string[][];
  const col = (name: string) => header!.indexOf(name);
  for (const d of decisions) {
    const row = rows.find((r) => r[col("person")] === d.person && r[col("scope")] === d.scope);
    expect(row, `${d.person} on ${d.scope} in review.csv`).toBeDefined();
    row![col("decision")] = "remove";
    row![col("justification")] = d.why;
  }
  const cell = (c: string) => (c.includes(";") || /["\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return "\uFEFF" + [header!, ...rows].map((r) => r.map(cell).join(";")).join("\r\n") + "\r\n";
}

describe("a firm's month with examples/gitops, at 2,007 members and 25 requests/s, as GitHub Actions runs them", ORDERED, () => {
  let changed = ""; // the member the first pull request gives AI_ADMIN
  let leaver = ""; // the member the sign-off removes

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
    expect(await sh(access, "pulumi", "up", "--yes", "--non-interactive")).toMatch(/adopted 2,?008 people already there/);
    expect(writes()).toEqual({});
    // The next up, with nothing changed anywhere, sends no request at all (the 2,007-member roster included).
    emu.traffic.log.reset();
    await sh(access, "pulumi", "up", "--yes", "--non-interactive", "--expect-no-changes");
    expect(emu.traffic.log.counters.total).toBe(0);
    // The roster's large texts are stored deflated, inputs and outputs alike (contract/packed.ts).
    const roster = (await stackExport()).find((r) => r.type.endsWith(":OrganizationMembers"))!;
    expect(roster.outputs.members).toMatch(/^deflate:/);
    expect(roster.inputs.members).toMatch(/^deflate:/);
    expect(Object.keys((await stackOutputsOf(roster.urn.split("::").pop()!)).members as object).length).toBeGreaterThanOrEqual(2007);

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

  it("preview.yml on a pull request changing one person and adding one: the comment names both, in a few lines, whatever the roster's size", async () => {
    await sh(ws, "git", "switch", "-q", "-c", "joan-joins");
    const text = fs.readFileSync(path.join(ws, "access", "access.ts"), "utf8");
    const line = /^ {6}\{ email: "([^"]+)",[^\n]*permissions: \[\][^\n]*$/m.exec(text)!;
    changed = line[1]!;
    editAccess(line[0], line[0].replace("permissions: []", `permissions: ["AI_ADMIN"]`));
    editAccess(
      "    members: [\n",
      `    members: [\n      { email: "${NEWCOMER}", permissions: ["AI_ADMIN"], expiresOn: "${dayIn(2)}" },\n`,
    );
    await commit("Joan joins for the Contoso matter, until it closes; one reviewer gets AI_ADMIN");
    emu.traffic.log.reset();
    const run = await runWorkflow("preview.yml", pullRequest());
    expect(run.ok, transcript(run)).toBe(true);
    const job = run.jobs.preview!;
    expect(job.steps.map((s) => [s.name, s.ran])).toEqual([
      ["actions/checkout@v7", false],
      ["actions/setup-node@v7", false],
      ["Run npm ci", true],
      ["pulumi/actions@v7", false], // install-only: the CLI is on PATH here
      ["Type-check access.ts", true],
      ["Preview, refreshed against the live service", true],
      ["Comment the preview on the pull request", true],
    ]);
    // The whole preview, in the job's log: the refresh's lines for every database, changed or not.
    expect(job.steps[5]!.output.match(/DatabaseUsers database-\d+ refresh $/gm)!.length).toBeGreaterThanOrEqual(201);
    // What the pull request's comment says (gh pr comment, with the job's token): the access review of the change.
    expect(gh.calls().at(-1)).toEqual(["pr", "comment", "7", "--edit-last", "--create-if-none", "--body-file", expect.any(String)]);
    expect(gh.record()).toContain(`GH_TOKEN=${GITHUB_TOKEN}`);
    const comment = gh.bodies().at(-1)!;
    expect(comment).toMatch(/^#### Access review: `pulumi preview --refresh` of acme\/access\/prod\n/);
    const lines = comment.split("\n").length;
    console.info(`firm's month: the pull request's preview comment is ${lines} lines, ${comment.length} characters`);
    // It grows with the change, not with the firm: no line for the 201 databases the stack declares and nothing changes on.
    expect(lines).toBeLessThan(100);
    expect(comment.length).toBeLessThan(10_000);
    expect(comment).not.toMatch(/database-\d+/);
    const said = diagnosticsOf(comment);
    expect(said).toContain("OrganizationMembers of organization 102: 2 people change");
    expect(said).toContain(`+ ${NEWCOMER}: AI_ADMIN, until ${dayIn(2)}`);
    expect(said).toContain(`~ ${changed}: no permission → AI_ADMIN`);
    expect(said.match(/^ {6}[+~-] /gm)).toHaveLength(2); // nobody else
    expect(comment).toMatch(/~ 1 to update\n +202 unchanged/);
    expect(comment).toMatch(new RegExp(`✅ ${PACK}@v\\S+ \\(local: node_modules/pulumi-reviewadmin/policy\\)`));
    // The same change as a reviewer reads it at a terminal: `pulumi preview --diff` (stdout and stderr, where --diff puts the resources' lines).
    const terminal = await sh(
      path.join(ws, "access"),
      "pulumi",
      "preview",
      "--diff",
      "--color",
      "never",
      "--non-interactive",
      "--stack",
      STACK,
    );
    const terminalLines = terminal.split("\n").length;
    console.info(`firm's month: pulumi preview --diff prints ${terminalLines} lines, ${terminal.length} characters`);
    expect(terminal.length).toBeLessThan(MAX_CHARACTER_COMMENT);
    expect(terminalLines).toBeLessThan(60);
    expect(terminal).toContain(`+ ${NEWCOMER}: AI_ADMIN, until ${dayIn(2)}`);
    expect(terminal).toContain(`~ ${changed}: no permission → AI_ADMIN`);
    expect(writes()).toEqual({});

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
          ...machineTrust(),
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

  it("up.yml on the merge to main: the pull request's change is applied, writing for those two people only", async () => {
    await merge("joan-joins");
    emu.traffic.log.reset();
    const run = await runWorkflow("up.yml", onMain("push"));
    expect(run.ok, transcript(run)).toBe(true);
    const action = actionOf(run.jobs.up!);
    expect(action.options).toMatchObject({ refresh: true, continueOnError: true, policyPacks: ["node_modules/pulumi-reviewadmin/policy"] });
    expect(action.log).toContain(`${PACK}|local|node_modules/pulumi-reviewadmin/policy`);
    expect(writes()).toEqual({ PatchOrganizationUser: 1, PostOrganizationUsers: 1 });
    expect(permissionsOf(changed)).toEqual(["AI_ADMIN"]);
    expect(emu.store.invitations.of(SEEDED.org).map((i) => i.email)).toContain(NEWCOMER);
    // suppress-outputs: the stack has outputs (notInAccessFile lists emails), and the log does not print them.
    expect(Object.keys(action.outputs ?? {})).toContain("notInAccessFile");
    expect(action.stdout).not.toMatch(/^Outputs:/m);
  });

  it("up-self-managed.yml: the same up on the self-managed backend (s3:// as a folder), passphrase from its secret", async () => {
    editAccess(`${MARGARET}: ["DB_UPLOAD"]`, `${MARGARET}: ["DB_DELETE", "DB_UPLOAD"]`);
    await commit("Margaret may delete documents in Northwind v. Contoso");
    emu.traffic.log.reset();
    const run = await runWorkflow("up-self-managed.yml", onMain("push"));
    expect(run.ok, transcript(run)).toBe(true);
    const job = run.jobs.up!;
    expect(job.steps.find((s) => s.name.startsWith("aws-actions/configure-aws-credentials@v6"))?.note).toMatch(/file:\/\/ folder/);
    const action = actionOf(job);
    expect(action.stackName).toBe("organization/access/prod");
    expect(job.steps.find((s) => s.action)?.env.PULUMI_CONFIG_PASSPHRASE).toBe(PASSPHRASE);
    // The state written once, at the end of the run (PULUMI_SKIP_CHECKPOINTS): the run still applies and records the change.
    expect(job.steps.find((s) => s.action)?.env.PULUMI_SKIP_CHECKPOINTS).toBe("true");
    expect(writes()).toEqual({ PutDatabaseUser: 1 });
    expect(emu.store.databases.findUser(DB, MARGARET)?.permissions.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);
  });

  it("drift.yml: passes without drift; after changes in the web application it fails, naming the new org admin and who made them one", async () => {
    const clean = await runWorkflow("drift.yml", onMain("schedule"));
    expect(clean.ok, transcript(clean)).toBe(true);
    expect(clean.jobs.drift!.steps.at(-1)).toMatchObject({ name: "Access expiring this week", ran: true, ok: true });

    // In the web application, Grace (user 1002) makes an outsider an org admin, and someone removes Margaret's grant.
    await control(emu.url, "POST", "/clock", { advanceMs: 60_000 });
    const added = await control(emu.url, "POST", `/organizations/${SEEDED.org}/members`, {
      email: MALLORY,
      firstName: "Mallory",
      lastName: "Evil",
      permissions: ["ORG_ADMIN"],
      actingUserId: SEEDED.users.parentAdminUser,
    });
    expect(added.status).toBe(201);
    expect((await control(emu.url, "DELETE", `/databases/${DB}/users/${MARGARET}`)).status).toBe(204);
    emu.traffic.log.reset();
    const drifted = await runWorkflow("drift.yml", onMain("schedule"));
    expect(drifted.ok).toBe(false);
    const job = drifted.jobs.drift!;
    const action = actionOf(job);
    expect(action.failed).toMatch(
      /1 person the program does not declare holds privileged access nobody decided about: mallory@evil\.example \(ORG_ADMIN; changed at \S+ by Grace Hopper <grace@northwind\.example> \(user 1002\) \(USER_ADDED\)\)/,
    );
    expect(action.log).not.toMatch(/\n\s+at \S+ \(/); // no stack trace
    // if: always(): the list of what expires runs after the failed check, logged in by the action.
    expect(job.steps.at(-1)).toMatchObject({ name: "Access expiring this week", ran: true, ok: true });
    expect(writes()).toEqual({}); // a preview writes nothing
  });

  it("up.yml, the repair: Margaret's grant is put back, then the job fails naming the org admin nobody decided about", async () => {
    emu.traffic.log.reset();
    const run = await runWorkflow("up.yml", event("workflow_dispatch", "refs/heads/main"));
    expect(run.ok).toBe(false);
    const action = actionOf(run.jobs.up!);
    expect(action.failed).toMatch(
      /mallory@evil\.example \(ORG_ADMIN; changed at \S+ by Grace Hopper <grace@northwind\.example> \(user 1002\) \(USER_ADDED\)\)/,
    );
    expect(action.log).not.toMatch(/\n\s+at \S+ \(/);
    expect(writes()).toEqual({ PutDatabaseUser: 1 });
    expect(emu.store.databases.findUser(DB, MARGARET)?.permissions.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);
    expect(permissionsOf(MALLORY)).toEqual(["ORG_ADMIN"]); // additive: left as it is, until someone decides
  });

  it("a pull request accepting the org admin: its preview shows it, the up stores it, and the drift job is clean again", async () => {
    await sh(ws, "git", "switch", "-q", "-c", "accept-mallory");
    editAccess(
      "    knownExceptions: [],",
      `    knownExceptions: ["${MALLORY}"], // accepted by Ada Lovelace on ${dayIn(0)}: outside counsel for Contoso, until the matter closes`,
    );
    await commit("Accept Mallory's org admin role: outside counsel for Contoso");
    const preview = await runWorkflow("preview.yml", pullRequest());
    expect(preview.ok, transcript(preview)).toBe(true);
    expect(diagnosticsOf(gh.bodies().at(-1)!)).toContain(`knownExceptions: + ${MALLORY} (accepted as they are)`);
    await merge("accept-mallory");
    emu.traffic.log.reset();
    const up = await runWorkflow("up.yml", onMain("push"));
    expect(up.ok, transcript(up)).toBe(true);
    expect(writes()).toEqual({});
    expect((await stackOutputsOf("organization-102")).knownExceptions).toEqual([MALLORY]);
    const drift = await runWorkflow("drift.yml", onMain("schedule"));
    expect(drift.ok, transcript(drift)).toBe(true);
    expect(actionOf(drift.jobs.drift!).log).not.toContain(MALLORY);
  });

  it("expire.yml on an expiry day: Joan's end date has come, and the daily up withdraws her invitation", async () => {
    const elsewhere = await runWorkflow("expire.yml", event("workflow_dispatch", "refs/heads/feature"));
    expect(elsewhere.jobs.expire).toMatchObject({ ran: false });
    await control(emu.url, "POST", "/clock", { advanceDays: 3 });
    emu.traffic.log.reset();
    const run = await runWorkflow("expire.yml", onMain("schedule"));
    expect(run.ok, transcript(run)).toBe(true);
    expect(actionOf(run.jobs.expire!).options).toMatchObject({ refresh: true, continueOnError: true });
    expect(writes()).toEqual({ DeleteOrganizationInvitation: 1 });
    expect(emu.store.invitations.of(SEEDED.org).map((i) => i.email)).not.toContain(NEWCOMER);
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
    for (const f of ["review.md", "review.csv", "review.json", "manifest.json"])
      expect(fs.existsSync(path.join(ws, packetDir(), f))).toBe(true);
    // The evidence traces: the tool's build (stamped into the tarball's dist/), the access repository's commit, the key.
    const manifest = JSON.parse(fs.readFileSync(path.join(ws, packetDir(), "manifest.json"), "utf8"));
    const built = JSON.parse(fs.readFileSync(path.join(repoRoot, "dist", "build-info.json"), "utf8"));
    expect(manifest.tool).toMatchObject({ commit: built.commit, from: "stamped at build" });
    expect(manifest.accessRepository.commit).toBe((await sh(ws, "git", "rev-parse", "HEAD")).trim());
    expect(manifest.key.actsAs).toBe("Ada Lovelace <ada@northwind.example> (user 1001)");
    expect(packet.steps.map((s) => s.name)).toContain("Verify the packet");
    const md = fs.readFileSync(path.join(ws, packetDir(), "review.md"), "utf8");
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
    expect(await sh(origin, "git", "show", `${branch}:${packetDir()}/review.md`)).toBe(md);
    // The manifest is committed with the packet.
    expect(await sh(origin, "git", "show", `${branch}:${packetDir()}/manifest.json`)).toBe(
      fs.readFileSync(path.join(ws, packetDir(), "manifest.json"), "utf8"),
    );
    expect(
      gh
        .calls()
        .find((c) => c[1] === "create")!
        .slice(0, 5),
    ).toEqual(["pr", "create", "--head", branch, "--title"]);
    expect(gh.record()).toContain(`GH_TOKEN=${GITHUB_TOKEN}`);
  });

  it("the sign-off, saved by a continental spreadsheet, removes two people: the preview shows exactly those two removals, the up takes them away", async () => {
    const text = fs.readFileSync(path.join(ws, "access", "access.ts"), "utf8");
    leaver = [...text.matchAll(/^ {6}\{ email: "([^"]+)",[^\n]*permissions: \[\][^\n]*$/gm)].map((m) => m[1]!).find((e) => e !== changed)!;
    const signoff = path.join(root, "signoff.csv");
    fs.writeFileSync(
      signoff,
      continentalSignoff([
        { person: leaver, scope: "organization", why: "left the firm" },
        { person: "margaret@northwind.example", scope: `database ${DB}`, why: "the matter closed" },
      ]),
    );
    await sh(ws, "git", "switch", "-q", "-c", "access-review-signoff");
    const cli = path.join(repoRoot, "dist", "cli", "main.js");
    const applied = await sh(
      ws,
      process.execPath,
      cli,
      "review",
      "apply-signoff",
      "--signoff",
      signoff,
      "--packet",
      packetDir(),
      "--access",
      "access/access.ts",
    );
    expect(applied).toContain("2 removed, 0 changed, 0 kept;");
    await commit("Access review: sign-off");

    const preview = await runWorkflow("preview.yml", pullRequest());
    expect(preview.ok, transcript(preview)).toBe(true);
    const said = diagnosticsOf(gh.bodies().at(-1)!);
    const removals = said.match(/^ {6}- .*$/gm) ?? [];
    expect(removals).toHaveLength(2);
    expect(removals.join("\n")).toContain(`- ${leaver}: no permission (expired on `);
    expect(removals.join("\n")).toMatch(new RegExp(`- user ${MARGARET} \\([^)]*\\): DB_DELETE, DB_UPLOAD \\(expired on `));

    await merge("access-review-signoff");
    emu.traffic.log.reset();
    const up = await runWorkflow("up.yml", onMain("push"));
    expect(up.ok, transcript(up)).toBe(true);
    expect(writes()).toEqual({ DeleteOrganizationUser: 1, DeleteDatabaseUser: 1 });
    expect(emu.store.members.find(SEEDED.org, emu.store.users.findByEmail(leaver)!.id)).toBeUndefined();
    expect(emu.store.databases.findUser(DB, MARGARET)).toBeUndefined();
    const drift = await runWorkflow("drift.yml", onMain("schedule"));
    expect(drift.ok, transcript(drift)).toBe(true);
  });
});
