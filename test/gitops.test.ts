/**
 * The GitOps workflow files in examples/gitops/ (docs/gitops.md): each is valid YAML and runs
 * Pulumi's action with what its job promises: a refreshed preview with a diff commented on every
 * pull request, a refreshed up on merge to main, and a scheduled drift check that fails on
 * changes. The API key comes from a CI secret, never from the file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..");
const dir = path.join(repoRoot, "examples", "gitops");
// js-yaml comes with @pulumi/pulumi (which reads Pulumi.yaml files with it).
const yaml = require("js-yaml") as { load: (text: string) => any };

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

function workflow(file: string): { on: Record<string, any>; steps: Step[]; pulumi: Step } {
  const doc = yaml.load(fs.readFileSync(path.join(dir, file), "utf8"));
  const jobs = Object.values(doc.jobs as Record<string, { steps: Step[] }>);
  expect(jobs).toHaveLength(1);
  const steps = jobs[0]!.steps;
  const pulumi = steps.find((s) => s.uses?.startsWith("pulumi/actions@"));
  expect(pulumi, `${file} uses pulumi/actions`).toBeDefined();
  return { on: doc.on, steps, pulumi: pulumi! };
}

describe("examples/gitops workflows", () => {
  it("every file is linked from docs/gitops.md", () => {
    const doc = fs.readFileSync(path.join(repoRoot, "docs", "gitops.md"), "utf8");
    for (const file of fs.readdirSync(dir)) expect(doc).toContain(`(../examples/gitops/${file})`);
  });

  it("preview.yml: a refreshed preview with a diff, commented on every pull request", () => {
    const w = workflow("preview.yml");
    expect(Object.keys(w.on)).toEqual(["pull_request"]);
    expect(w.pulumi.with).toMatchObject({ command: "preview", refresh: true, diff: true, "comment-on-pr": true });
  });

  it("up.yml: a refreshed up on merge to main", () => {
    const w = workflow("up.yml");
    expect(w.on.push.branches).toEqual(["main"]);
    expect(w.pulumi.with).toMatchObject({ command: "up", refresh: true });
  });

  it("drift.yml: a scheduled preview --refresh --expect-no-changes", () => {
    const w = workflow("drift.yml");
    expect(w.on.schedule[0].cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    expect(w.pulumi.with).toMatchObject({ command: "preview", refresh: true, "expect-no-changes": true });
  });

  it("expire.yml: a daily refreshed up on main, in up.yml's concurrency group; drift.yml prints what expires this week", () => {
    const w = workflow("expire.yml");
    expect(w.on.schedule[0].cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(w.pulumi.with).toMatchObject({ command: "up", refresh: true, "stack-name": "acme/access/prod" });
    expect(w.pulumi.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    expect(workflow("drift.yml").steps.some((st) => /expiringSoon/.test(st.run ?? ""))).toBe(true);
  });

  it.each(["preview.yml", "up.yml", "drift.yml", "up-self-managed.yml", "expire.yml"])("%s runs the package's policy pack", (file) => {
    expect(workflow(file).pulumi.with?.policyPacks).toBe("access/node_modules/pulumi-reviewadmin/policy");
  });

  it("up-self-managed.yml: a self-managed backend, passphrase secrets, a stack name valid there", () => {
    const w = workflow("up-self-managed.yml");
    expect(w.pulumi.with).toMatchObject({ command: "up", "stack-name": "organization/access/prod" });
    expect(String(w.pulumi.with?.["cloud-url"])).toMatch(/^s3:\/\//);
    expect(w.pulumi.env?.PULUMI_CONFIG_PASSPHRASE).toBe("${{ secrets.PULUMI_CONFIG_PASSPHRASE }}");
    expect(w.pulumi.env?.PULUMI_ACCESS_TOKEN).toBeUndefined();
  });

  it.each(["preview.yml", "up.yml", "drift.yml", "up-self-managed.yml"])(
    "%s installs the project's packages first and takes the key from a CI secret",
    (file) => {
      const w = workflow(file);
      const at = (pred: (s: Step) => boolean) => w.steps.findIndex(pred);
      expect(at((s) => s.run === "npm ci")).toBeGreaterThan(at((s) => !!s.uses?.startsWith("actions/setup-node@")));
      expect(at((s) => s === w.pulumi)).toBeGreaterThan(at((s) => s.run === "npm ci"));
      expect(w.pulumi.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
      expect(w.pulumi.with?.["work-dir"]).toBe("access");
    },
  );
});

describe("examples/gitops/review.yml (issue 27)", () => {
  it("runs the review on a schedule with the previous packet, the key from a CI secret, and commits the packet", () => {
    const doc = yaml.load(fs.readFileSync(path.join(dir, "review.yml"), "utf8"));
    expect(doc.on.schedule).toHaveLength(1);
    const steps = (Object.values(doc.jobs)[0] as { steps: Step[] }).steps;
    const review = steps.find((s) => s.run?.includes("pulumi-reviewadmin review"))!;
    expect(review.run).toContain("--previous access-review");
    // Judged against the access program's code: the CLI is installed first, and logged in by token.
    expect(review.run).toContain("--stack acme/access/prod");
    expect(steps.findIndex((s) => s.uses?.startsWith("pulumi/actions@"))).toBeLessThan(steps.indexOf(review));
    expect(review.env?.PULUMI_ACCESS_TOKEN).toBe("${{ secrets.PULUMI_ACCESS_TOKEN }}");
    expect(review.env?.REVIEWADMIN_API_KEY).toBe("${{ secrets.REVIEWADMIN_API_KEY }}");
    expect(steps.findIndex((s) => s.run === "npm ci")).toBeLessThan(steps.indexOf(review));
    expect(steps.some((s) => s.run?.includes("git add access-review"))).toBe(true);
  });
});
