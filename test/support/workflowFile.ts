/** A GitHub Actions workflow file as its YAML writes it (examples/gitops/), for the tests that read or run one. */
import * as fs from "node:fs";

// js-yaml comes with @pulumi/pulumi (which reads Pulumi.yaml files with it).
const yaml = require("js-yaml") as { load: (text: string) => unknown };

/** One step of a workflow's job, as the YAML writes it. */
export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  "working-directory"?: string;
  shell?: string;
}

/** One job, as the YAML writes it. */
export interface WorkflowJob {
  if?: string;
  needs?: string | string[];
  /** A matrix of jobs (up-per-organization.yml: one per organization). */
  strategy?: { "fail-fast"?: boolean; "max-parallel"?: number; matrix?: Record<string, unknown> };
  concurrency?: { group: string; "cancel-in-progress"?: boolean };
  environment?: string;
  permissions?: unknown;
  env?: Record<string, unknown>;
  steps: WorkflowStep[];
}

/** A workflow file, as the YAML writes it. */
export interface Workflow {
  on: Record<string, unknown>;
  permissions?: unknown;
  concurrency?: { group: string; "cancel-in-progress"?: boolean };
  env?: Record<string, unknown>;
  jobs: Record<string, WorkflowJob>;
}

/** Reads a workflow file. */
export function readWorkflow(file: string): Workflow {
  return yaml.load(fs.readFileSync(file, "utf8")) as Workflow;
}
