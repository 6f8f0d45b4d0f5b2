/**
 * The GitOps workflow files in examples/gitops/ (docs/gitops.md), read as YAML: what each job
 * promises (a refreshed preview commented on every pull request, a refreshed up on merge, a
 * scheduled drift check that fails on changes, the monthly review split so that no job holds both
 * the key and write access), that the names and paths in them fit the project `export --out
 * access` writes, and that every cross-reference and action major is current. Whether they run is
 * test/engine/gitops.test.ts's question: it runs each file as GitHub Actions would.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readWorkflow, type Workflow, type WorkflowStep } from "./support/workflowFile";

const repoRoot = path.resolve(__dirname, "..");
const dir = path.join(repoRoot, "examples", "gitops");
const FILES = fs.readdirSync(dir).filter((f) => f.endsWith(".yml"));
const docs = fs.readFileSync(path.join(repoRoot, "docs", "gitops.md"), "utf8");

/** The current major of each action the files use; each runs on node24. */
const CURRENT_MAJORS: Record<string, string> = {
  "actions/checkout": "v7",
  "actions/setup-node": "v7",
  "actions/upload-artifact": "v7",
  "actions/download-artifact": "v8",
  "aws-actions/configure-aws-credentials": "v6",
  "pulumi/actions": "v7",
};

const workflow = (file: string): Workflow => readWorkflow(path.join(dir, file));
const stepsOf = (wf: Workflow): WorkflowStep[] => Object.values(wf.jobs).flatMap((j) => j.steps);

/** The one job of a file and its Pulumi step (the one with a command). */
function pulumiJob(file: string): { wf: Workflow; steps: WorkflowStep[]; pulumi: WorkflowStep } {
  const wf = workflow(file);
  const jobs = Object.values(wf.jobs);
  expect(jobs).toHaveLength(1);
  const steps = jobs[0]!.steps;
  const pulumi = steps.find((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command);
  expect(pulumi, `${file} runs pulumi/actions with a command`).toBeDefined();
  return { wf, steps, pulumi: pulumi! };
}

/** The files whose pulumi/actions step runs the command (preview.yml runs it in a step of its own). */
const PULUMI_FILES = ["up.yml", "up-self-managed.yml", "drift.yml", "expire.yml"];
/** The up of a firm exported one project per organization: a matrix over access/<organization>/. */
const PER_ORGANIZATION = "up-per-organization.yml";

describe("examples/gitops workflows", () => {
  it("every file is linked from docs/gitops.md", () => {
    for (const file of FILES) expect(docs).toContain(`(../examples/gitops/${file})`);
  });

  it("preview.yml: a refreshed preview with the pack, outputs left out, commented without the unchanged resources' lines", () => {
    const wf = workflow("preview.yml");
    expect(Object.keys(wf.on)).toEqual(["pull_request"]);
    const [job] = Object.values(wf.jobs);
    const at = (pred: (s: WorkflowStep) => boolean) => job!.steps.findIndex(pred);
    // The action installs the CLI only; the preview runs in a step of its own, into a file.
    const action = at((s) => !!s.uses?.startsWith("pulumi/actions@"));
    expect(job!.steps[action]!.with).toBeUndefined();
    // access.ts type-checked once, before the preview, which then only transpiles it.
    const check = job!.steps[action + 1]!;
    expect(check).toMatchObject({ run: "npx tsc --noEmit", "working-directory": "access" });
    const preview = job!.steps[action + 2]!;
    expect(preview.env?.PULUMI_NODEJS_TRANSPILE_ONLY).toBe("true");
    expect(preview["working-directory"]).toBe("access");
    const command = (preview.run ?? "").replace(/\\\n\s*/g, "");
    for (const flag of ["--refresh", "--suppress-outputs", "--policy-pack node_modules/pulumi-reviewadmin/policy", "--color never"])
      expect(command).toContain(flag);
    // With --diff the CLI prints the resources' own lines (what changes, person by person) on stderr.
    expect(command).not.toContain("--diff");
    expect(command).toMatch(/\| tee "\$RUNNER_TEMP\/preview\.txt"/);
    expect(preview.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    // The comment, made from that file: test/engine/gitops.test.ts reads it, at 202 databases.
    const comment = job!.steps[action + 3]!;
    expect(comment.run).toContain('"$RUNNER_TEMP/preview.txt"');
    expect(comment.run).toMatch(/gh pr comment "\$PR" --edit-last --create-if-none --body-file/);
    expect(comment.env).toEqual({ GH_TOKEN: "${{ github.token }}", PR: "${{ github.event.pull_request.number }}" });
    expect(job!.steps).toHaveLength(action + 4);
  });

  it("up.yml, up-self-managed.yml, expire.yml: a refreshed up that applies everything it can (continue-on-error)", () => {
    for (const file of ["up.yml", "up-self-managed.yml", "expire.yml"]) {
      expect(pulumiJob(file).pulumi.with, file).toMatchObject({ command: "up", refresh: true, "continue-on-error": true });
    }
    expect((workflow("up.yml").on.push as { branches: string[] }).branches).toEqual(["main"]);
  });

  it("drift.yml: a scheduled preview --refresh --expect-no-changes, then what expires this week, even after a failure", () => {
    const w = pulumiJob("drift.yml");
    expect((w.wf.on.schedule as { cron: string }[])[0]!.cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    expect(w.pulumi.with).toMatchObject({ command: "preview", refresh: true, "expect-no-changes": true });
    const expiring = w.steps.find((s) => /expiringSoon/.test(s.run ?? ""));
    expect(expiring?.if).toBe("always()");
  });

  it("expire.yml: daily, on main only, in up.yml's concurrency group", () => {
    const w = pulumiJob("expire.yml");
    expect((w.wf.on.schedule as { cron: string }[])[0]!.cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(Object.values(w.wf.jobs)[0]!.if).toBe("github.ref == 'refs/heads/main'");
    expect(w.wf.concurrency?.group).toBe(workflow("up.yml").concurrency?.group);
  });

  it.each(PULUMI_FILES)("%s runs the package's policy pack at a path relative to work-dir (the action runs the CLI there)", (file) => {
    const { pulumi } = pulumiJob(file);
    const workDir = String(pulumi.with?.["work-dir"]);
    expect(workDir).toBe("access");
    // The exported project installs the package into access/node_modules.
    expect(path.posix.join(workDir, String(pulumi.with?.policyPacks))).toBe("access/node_modules/pulumi-reviewadmin/policy");
  });

  it("every stack name is <org>/access/<stack>: the project `export --out access` writes", () => {
    const names: string[] = [];
    for (const file of FILES.filter((f) => f !== PER_ORGANIZATION)) {
      for (const step of stepsOf(workflow(file))) {
        if (step.with?.["stack-name"]) names.push(String(step.with["stack-name"]));
        for (const m of (step.run ?? "").matchAll(/--stack\s+(\S+)/g)) names.push(m[1]!);
      }
    }
    expect(names.length).toBeGreaterThanOrEqual(PULUMI_FILES.length + 2);
    for (const name of names) expect(name).toMatch(/^(acme|organization)\/access\/prod$/);
    expect(docs).toContain("pulumi stack init acme/access/prod");
  });

  it("up-per-organization.yml: the up of each project `export --per-organization --out access` writes, as a matrix, each with its own key", () => {
    const w = pulumiJob(PER_ORGANIZATION);
    const job = Object.values(w.wf.jobs)[0]!;
    const organizations = job.strategy?.matrix?.organization as string[];
    // The folders the export writes for the seeded firm (test/cli/exportPerOrganization.test.ts).
    expect(organizations).toEqual(["northwind-holdings", "northwind-legal", "northwind-compliance", "contoso-llp"]);
    expect(job.strategy?.["fail-fast"]).toBe(false);
    // Each organization in its own environment (its key), one run at a time per organization.
    expect(job.environment).toBe("access-prod-${{ matrix.organization }}");
    expect(job.concurrency).toEqual({ group: "access-up-${{ matrix.organization }}", "cancel-in-progress": false });
    expect(w.pulumi.with).toMatchObject({ command: "up", refresh: true, "continue-on-error": true, "suppress-outputs": true });
    expect(w.pulumi.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    expect(w.pulumi.env?.PULUMI_NODEJS_TRANSPILE_ONLY).toBe("true");
    for (const folder of organizations) {
      const of = (v: unknown) => String(v).replace(/\$\{\{ matrix\.organization \}\}/g, folder);
      const workDir = of(w.pulumi.with?.["work-dir"]);
      expect(workDir).toBe(`access/${folder}`);
      expect(of(w.steps.find((s) => s.run === "npm ci")?.["working-directory"])).toBe(workDir);
      // The project part is the name `export --per-organization --out access` gives it: access-<folder>.
      expect(of(w.pulumi.with?.["stack-name"])).toBe(`acme/access-${folder}/prod`);
      expect(path.posix.join(workDir, String(w.pulumi.with?.policyPacks))).toBe(`access/${folder}/node_modules/pulumi-reviewadmin/policy`);
    }
    expect(docs).toContain("export --per-organization --out access");
  });

  it("up-self-managed.yml: a self-managed backend, passphrase secrets, a stack name valid there", () => {
    const w = pulumiJob("up-self-managed.yml");
    expect(w.pulumi.with).toMatchObject({ command: "up", "stack-name": "organization/access/prod" });
    expect(String(w.pulumi.with?.["cloud-url"])).toMatch(/^s3:\/\//);
    expect(w.pulumi.env?.PULUMI_CONFIG_PASSPHRASE).toBe("${{ secrets.PULUMI_CONFIG_PASSPHRASE }}");
    expect(w.pulumi.env?.PULUMI_ACCESS_TOKEN).toBeUndefined();
    // The state written once per run (docs/gitops.md): what test/engine/skipCheckpoints.test.ts proves safe.
    expect(w.pulumi.env?.PULUMI_SKIP_CHECKPOINTS).toBe("true");
  });

  it.each(PULUMI_FILES)("%s installs the project's packages first and takes the key from a CI secret", (file) => {
    const w = pulumiJob(file);
    const at = (pred: (s: WorkflowStep) => boolean) => w.steps.findIndex(pred);
    expect(at((s) => s.run === "npm ci")).toBeGreaterThan(at((s) => !!s.uses?.startsWith("actions/setup-node@")));
    expect(at((s) => s === w.pulumi)).toBeGreaterThan(at((s) => s.run === "npm ci"));
    expect(w.pulumi.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    // Type-checked by the pull request's preview: the runs after the merge only transpile access.ts.
    expect(w.pulumi.env?.PULUMI_NODEJS_TRANSPILE_ONLY).toBe("true");
  });

  it("every action is at its current major (each runs on node24)", () => {
    for (const file of FILES) {
      for (const step of stepsOf(workflow(file))) {
        if (!step.uses) continue;
        const [action, version] = step.uses.split("@") as [string, string];
        expect(CURRENT_MAJORS[action], `${file}: ${action} is not in the table of current majors`).toBeDefined();
        expect(`${action}@${version}`, file).toBe(`${action}@${CURRENT_MAJORS[action]}`);
      }
    }
  });

  it("every 'docs/gitops.md, step N' in the files names a step whose section speaks of that file", () => {
    let refs = 0;
    for (const file of FILES) {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      for (const m of text.matchAll(/docs\/gitops\.md, step (\d+)/g)) {
        refs++;
        const section = new RegExp(`^## ${m[1]}\\. [^\\n]*\\n([\\s\\S]*?)(?=^## )`, "m").exec(docs);
        expect(section, `${file}: docs/gitops.md has no step ${m[1]}`).not.toBeNull();
        expect(section![1], `${file}: step ${m[1]} of docs/gitops.md does not mention it`).toContain(file);
      }
    }
    expect(refs).toBeGreaterThanOrEqual(3);
  });
});

describe("examples/gitops/review.yml", () => {
  const wf = workflow("review.yml");
  const text = fs.readFileSync(path.join(dir, "review.yml"), "utf8");

  it("runs monthly: one job with the key that may only read, one that may write and holds no secret", () => {
    expect((wf.on.schedule as unknown[]).length).toBe(1);
    expect(wf.permissions).toEqual({});
    const { packet, "pull-request": pr } = wf.jobs;
    expect(packet?.permissions).toEqual({ contents: "read" });
    expect(pr?.permissions).toEqual({ contents: "write", "pull-requests": "write" });
    expect(pr?.needs).toBe("packet");
    const review = packet!.steps.find((s) => s.run?.includes("pulumi-reviewadmin review"))!;
    expect(review.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    // Each month's packet in a folder of its own, judged against the latest earlier one.
    expect(review.run).toContain('out="access-review/$(date -u +%Y-%m)"');
    expect(review.run).toContain('options+=(--previous "$previous")');
    // The write job references no secret at all: only the job's own GITHUB_TOKEN.
    expect(JSON.stringify(pr)).not.toMatch(/secrets\./);
    expect(pr!.steps.some((s) => s.run?.includes("git add access-review"))).toBe(true);
  });

  it("hands the packet over as a short-lived artifact, by one name", () => {
    const upload = wf.jobs.packet!.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    const download = wf.jobs["pull-request"]!.steps.find((s) => s.uses?.startsWith("actions/download-artifact@"));
    expect(upload?.with).toMatchObject({ path: "access-review/", "retention-days": 1, "if-no-files-found": "error" });
    expect(download?.with).toMatchObject({ name: upload?.with?.name, path: "access-review" });
  });

  it("says which repository setting `gh pr create` with GITHUB_TOKEN needs, as docs/gitops.md does", () => {
    const setting = "Allow GitHub Actions to create and approve pull requests";
    expect(text).toContain(setting);
    expect(docs).toContain(setting);
  });
});
