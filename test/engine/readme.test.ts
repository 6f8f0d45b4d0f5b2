/**
 * The README and the user docs its sections moved to (RUN_DOCS: docs/resources.md,
 * configuration.md, reviews.md ...), run as a user runs them, with the real Pulumi CLI against the
 * seeded emulator: every fenced block is either run here or listed with the reason it is not (a
 * new block that is neither fails), so a doc edit that breaks a documented program or command
 * fails CI.
 *
 * - The shell blocks (```sh) run as pasted into bash, in the order of their story: the README's
 *   "Install from the release" makes a consumer project (the release folder's checksums checked,
 *   the packed tarball installed from `vendor/`, a stack with the base URL and the secret key, the
 *   doctor); the onboarding exports from there and adopts with no write; configuration, the policy
 *   pack, the vendor's routes and the emulator run in it too. What a user fills in comes from
 *   placeholders(); a line that cannot run here is listed with why, or replaced by what it does
 *   (`pulumi new typescript`, which needs the network).
 * - Each program (```ts) is the index.ts of that project (a stack of its own, the emulator reset;
 *   docs/resources.md's one-resource examples together, as modules of one program): `pulumi
 *   up`, `pulumi up --expect-no-changes` with no write request, then one small change and `pulumi
 *   up` with the change live (test/support/readmeBlocks.ts).
 * test/cli/readme.test.ts checks that every block is run here or listed (test/support/readmeBlocks.ts),
 * and what the docs name (links, commands and flags, versions).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarball } from "../../bench/exportedProject";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ConsumerShell, type ShellResult } from "../support/consumerShell";
import { noEngine, skipWithoutEngine } from "../support/engine";
import { writesFrom } from "../support/programWorld";
import { blockWith, commandPart, docBlocks, placeholdersIn, repoRoot, whereIs } from "../support/readme";
import { PROGRAMS, SCRIPT, STORIES, type Program, type Story } from "../support/readmeBlocks";

skipWithoutEngine("test/engine/readme.test.ts");

const blocks = docBlocks();
const blockOf = (key: string) => blockWith(blocks, key);

let emu: RunningEmulator;
let shell: ConsumerShell;
let project = "";
let tarball = "";
/** What the own-project block printed (run once, in beforeAll: every other test uses its project). */
let setup: ShellResult | undefined;

/** What a user fills in, and what the test fills in instead. */
function placeholders(extra: [string, string][] = []): [string, string][] {
  return [
    ["https://<your region's API host>", emu.url], // the emulator: plain http, allowed on loopback only
    ["<an org admin's key>", emu.keys.orgAdmin!],
    ["'<prefix>.<ID>.<SECRET>'", `'${emu.keys.orgAdmin!}'`],
    ["<release>", path.dirname(tarball)], // the release's folder: the tarball and its SHA256SUMS
    ...extra,
  ];
}

/** The block of `story` as a bash script: its command lines, placeholders filled in, the lines not run left out. */
function scriptOf(story: Story, extra: [string, string][] = []): string {
  const block = blockOf(story.block);
  const commands = block.lines.map((l, i) => ({ at: block.line + 1 + i, cmd: commandPart(l).trim() })).filter((c) => c.cmd);
  for (const k of [...Object.keys(story.notRun ?? {}), ...Object.keys(story.instead ?? {})])
    if (!commands.some((c) => c.cmd === k)) throw new Error(`the block at ${whereIs(block)} no longer has the line ${JSON.stringify(k)}`);
  return commands
    .filter((c) => story.notRun?.[c.cmd] === undefined)
    .map(({ at, cmd }) => {
      let run = story.instead?.[cmd]?.run ?? cmd;
      for (const [from, to] of placeholders(extra)) run = run.split(from).join(to);
      const left = placeholdersIn(run.replace(/"\$[A-Z_]+"/g, ""));
      if (left.length > 0) throw new Error(`${block.file} line ${at}: ${left.join(", ")} is not in the test's placeholders`);
      return run;
    })
    .join("\n");
}

/** A pulumi command in the consumer project. */
const pulumi = (args: string[]) => shell.run("pulumi", args, { cwd: project });

/** Resets the emulator to its seeded world on the real clock (or on `today`, 09:00 UTC), with the request log emptied. */
function resetWorld(today?: string): void {
  // The clock first: the world is seeded relative to it (invitations sent two days ago, events).
  emu.store.clock.offsetMs = 0;
  if (today) emu.store.clock.advance(Date.parse(`${today}T09:00:00Z`) - emu.store.clock.now());
  emu.reset();
  emu.traffic.log.reset();
}

/** Makes `stack` (a copy of dev's config: the base URL and the secret key the own-project block set) and selects it. */
async function stackFor(stack: string): Promise<void> {
  if (stack === "dev") {
    expect((await pulumi(["stack", "select", "dev"])).code).toBe(0);
    return;
  }
  const r = await pulumi(["stack", "init", stack, "--copy-config-from", "dev"]);
  expect(r.code, r.out).toBe(0);
}

/** The program's code as index.ts: the block, after what it needs. */
function codeOf(p: Pick<Program, "block" | "needs">): string {
  return `${p.needs?.prelude ?? ""}${blockOf(p.block).lines.join("\n")}\n`;
}

/**
 * Runs the docs' programs of one stack (one, or several as modules of one program): up (as a user
 * does: preview, then the update, confirmed), up with nothing changed (`--expect-no-changes`, no
 * write request), then up after each program's change, with each change live. The second and
 * third skip the preview the first showed: each preview is one more run of the program.
 */
async function runPrograms(ps: Program[], afterFirstUp?: () => Promise<void>): Promise<void> {
  resetWorld(ps.find((p) => p.today)?.today);
  const stack = ps[0]!.stack;
  await stackFor(stack);
  const moduleName = (b: ReturnType<typeof blockOf>) => `${path.basename(b.file, ".md").toLowerCase()}-${b.line}.ts`;
  const modules = ps.map((p) => ({ p, file: ps.length === 1 ? "index.ts" : moduleName(blockOf(p.block)), code: codeOf(p) }));
  for (const m of modules) {
    m.p.needs?.files?.(project);
    fs.writeFileSync(path.join(project, m.file), m.code);
  }
  if (ps.length > 1)
    fs.writeFileSync(path.join(project, "index.ts"), modules.map((m) => `import "./${m.file.replace(/\.ts$/, "")}";\n`).join(""));
  const lines = `the block${ps.length > 1 ? "s" : ""} at ${ps.map((p) => whereIs(blockOf(p.block))).join(", ")}`;

  const first = await pulumi(["up", "--stack", stack]);
  expect(first.code, `the first pulumi up of ${lines}:\n${first.out}`).toBe(0);
  for (const p of ps) p.applied?.(emu);
  await afterFirstUp?.();

  const since = writesFrom(emu);
  const again = await pulumi(["up", "--stack", stack, "--skip-preview", "--expect-no-changes"]);
  expect(again.code, `pulumi up --expect-no-changes of ${lines}, nothing changed:\n${again.out}`).toBe(0);
  expect(since(), `write requests of an up of ${lines} with nothing changed`).toEqual([]);

  for (const { p, file, code } of modules) {
    if (p.change.edit) {
      const changed = p.change.edit(code);
      expect(changed).not.toBe(code);
      fs.writeFileSync(path.join(project, file), changed);
    }
    p.change.files?.(project);
  }
  const third = await pulumi(["up", "--stack", stack, "--skip-preview"]);
  expect(third.code, `pulumi up of ${lines} after ${ps.map((p) => p.change.what).join("; ")}:\n${third.out}`).toBe(0);
  for (const p of ps) p.change.live(emu);
}

beforeAll(async () => {
  if (noEngine) return;
  emu = await startEmulator({ rateLimit: 0 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "readme-"));
  shell = new ConsumerShell(root);
  project = path.join(root, "my-access");
  tarball = packedTarball();
  // The release's folder holds SHA256SUMS beside its files; the packed tarball's folder gets one.
  const sum = createHash("sha256").update(fs.readFileSync(tarball)).digest("hex");
  fs.writeFileSync(path.join(path.dirname(tarball), "SHA256SUMS"), `${sum}  ${path.basename(tarball)}\n`);
  // What `pulumi new typescript` writes: the typescript template's files (tsconfig: module nodenext).
  const template = path.join(root, "pulumi-new-typescript");
  fs.mkdirSync(template);
  for (const [name, text] of Object.entries(PULUMI_NEW_TYPESCRIPT)) fs.writeFileSync(path.join(template, name), text);
  setup = await shell.bash(scriptOf(STORIES.ownProject), { cwd: root, env: { PULUMI_NEW_TEMPLATE: template } });
  if (setup.code !== 0) throw new Error(`the README's "Install from the release" block failed:\n${setup.out}`);
}, 300_000);

// Three installed projects are tens of thousands of files: removing them takes a while on a busy disk.
afterAll(async () => {
  await emu?.close();
  if (shell) await fs.promises.rm(shell.root, { recursive: true, force: true });
}, 300_000);

/** The files `pulumi new typescript --yes` writes in a folder named my-access (the template of Pulumi's templates repository). */
const PULUMI_NEW_TYPESCRIPT: Record<string, string> = {
  "Pulumi.yaml":
    "name: my-access\ndescription: A minimal TypeScript Pulumi program\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n",
  "package.json": `${JSON.stringify(
    {
      name: "my-access",
      main: "index.ts",
      devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
    },
    null,
    4,
  )}\n`,
  "tsconfig.json": `${JSON.stringify(
    {
      compilerOptions: {
        strict: true,
        outDir: "bin",
        target: "es2020",
        module: "nodenext",
        moduleResolution: "nodenext",
        sourceMap: true,
        experimentalDecorators: true,
        pretty: true,
        noFallthroughCasesInSwitch: true,
        noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
      },
      files: ["index.ts"],
    },
    null,
    4,
  )}\n`,
  "index.ts": 'import * as pulumi from "@pulumi/pulumi";\n',
};

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesIn(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/**
 * What docs/configuration.md says the state holds of the key: no plaintext key and not its id in any file of
 * the backend; the stack's config, the key as a Pulumi secret (ciphertext of the stack's secrets
 * provider), in the default provider's inputs and outputs and in each update's history; shown in
 * clear only by `pulumi stack export --show-secrets`.
 */
async function keyInState(stack: string): Promise<void> {
  const key = emu.keys.orgAdmin!;
  const [, id, secret] = key.split(".");
  const files = filesIn(shell.backend).map((f) => [path.relative(shell.backend, f), fs.readFileSync(f, "latin1")] as const);
  expect(files.length).toBeGreaterThan(3);
  for (const [f, text] of files) for (const part of [key, secret!, id!]) expect(text.includes(part), `${part} in ${f}`).toBe(false);

  const checkpoint = JSON.parse(files.find(([f]) => f === `.pulumi/stacks/my-access/${stack}.json`)![1]);
  const provider = checkpoint.checkpoint.latest.resources.find((r: any) => r.type === "pulumi:providers:pulumi-nodejs");
  for (const side of ["inputs", "outputs"]) {
    expect(provider[side]["reviewadmin:baseUrl"]).toBe(emu.url);
    expect(Object.keys(provider[side]["reviewadmin:apiKey"]).sort()).toEqual(["4dabf18193072939515e22adb298388d", "ciphertext"]);
  }
  const history = files.filter(([f]) => f.startsWith(`.pulumi/history/my-access/${stack}/`) && f.endsWith(".history.json"));
  expect(history.length).toBeGreaterThan(0);
  for (const [, text] of history) expect(JSON.parse(text).config["reviewadmin:apiKey"]).toEqual({ secure: expect.stringMatching(/^v1:/) });

  const exported = await pulumi(["stack", "export", "--stack", stack]);
  expect(exported.code, exported.out).toBe(0);
  expect(exported.out).not.toContain(secret);
  const shown = await pulumi(["stack", "export", "--stack", stack, "--show-secrets"]);
  expect(shown.code, shown.out).toBe(0);
  expect(shown.out).toContain(JSON.stringify(JSON.stringify(key)));
}

describe("README.md and the user docs, run", () => {
  it("Install from the release: the checksums, the tarball from vendor/, the stack's config, the doctor, then preview --diff and the program", async () => {
    // The block ran in beforeAll (every other test works in its project); here is what it did.
    expect(setup!.code).toBe(0);
    expect(setup!.out).toMatch(/pulumi-reviewadmin-[\d.]+\.tgz: OK/);
    expect(setup!.out).toContain("stack dev's config, then REVIEWADMIN_* variables");
    expect(setup!.out).toContain("apiKey: stack dev: reviewadmin:apiKey");
    expect(setup!.out).toMatch(/acts as\s+Ada Lovelace/);
    expect(setup!.out).not.toContain(emu.keys.orgAdmin!.split(".")[2]);
    const installed = path.join(project, "node_modules/pulumi-reviewadmin");
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")).dependencies["pulumi-reviewadmin"]).toBe(
      `file:vendor/${path.basename(tarball)}`,
    );

    // "Declare access": index.ts, then pulumi preview --diff, then pulumi up.
    resetWorld();
    const program = PROGRAMS[0]!;
    fs.writeFileSync(path.join(project, "index.ts"), codeOf(program));
    expect((await pulumi(["stack", "select", "dev"])).code).toBe(0);
    const preview = await pulumi(["preview", "--diff"]);
    expect(preview.code, preview.out).toBe(0);
    expect(preview.out).toContain("ada@northwind.example");
    await runPrograms([program], () => keyInState("dev"));
  });

  it("Install from the release, copying an example instead of pulumi new: access-baseline on the tarball", async () => {
    resetWorld();
    // The block's other path: "or copy one of examples/, then: pulumi stack init dev".
    const example = path.join(shell.root, "access-baseline");
    fs.cpSync(path.join(repoRoot, "examples/access-baseline"), example, {
      recursive: true,
      filter: (src) => !/node_modules|Pulumi\.[^/]*\.yaml$/.test(src),
    });
    const copy = {
      ...STORIES.ownProject,
      instead: { "pulumi new typescript --yes": { run: 'cp -R "$EXAMPLE"/. . && pulumi stack init dev', why: "the comment's other way" } },
    };
    const cwd = fs.mkdtempSync(path.join(shell.root, "copy-"));
    const r = await shell.bash(scriptOf(copy), { cwd, env: { EXAMPLE: example } });
    expect(r.code, r.out).toBe(0);
    const folder = path.join(cwd, "my-access");
    const up = await shell.run("pulumi", ["up"], { cwd: folder });
    expect(up.code, up.out).toBe(0);
    expect(up.out).toMatch(/6 created/);
    expect(emu.store.members.find(102, 1011)).toBeDefined();
    const since = writesFrom(emu);
    const again = await shell.run("pulumi", ["up", "--skip-preview", "--expect-no-changes"], { cwd: folder });
    expect(again.code, again.out).toBe(0);
    expect(since()).toEqual([]);
  });

  const groups = [...new Set(PROGRAMS.slice(1).map((p) => p.stack))].map((stack) => PROGRAMS.filter((p) => p.stack === stack));
  it.each(groups.map((ps) => [`${ps[0]!.stack} (${ps.map((p) => whereIs(blockOf(p.block))).join(", ")})`, ps] as const))(
    "program %s: up, up with nothing changed and no write, up after a small change",
    async (_name, ps) => {
      await runPrograms(ps);
    },
  );

  it("the data-source block of docs/reviews.md runs as a plain Node script", async () => {
    resetWorld();
    const script = path.join(project, "access-matrix.mts");
    fs.writeFileSync(script, `${SCRIPT.prelude}${blockOf(SCRIPT.block).lines.join("\n")}\n`);
    const r = await shell.run(process.execPath, [script], {
      cwd: project,
      env: { REVIEWADMIN_API_KEY: emu.keys.orgAdmin!, REVIEWADMIN_BASE_URL: emu.url },
    });
    expect(r.code, r.out).toBe(0);
    expect(fs.readFileSync(path.join(project, "access.md"), "utf8")).toContain(
      "| ada@northwind.example | Ada Lovelace | 1001 | ORG_ADMIN |",
    );
  });

  it("Onboarding: export from the project, install the tarball from vendor/, adopt with no write request", async () => {
    resetWorld();
    const since = writesFrom(emu);
    const r = await shell.bash(scriptOf(STORIES.onboarding), { cwd: project, stdin: `${emu.keys.orgAdmin}\n` });
    expect(r.code, r.out).toBe(0);
    expect(since()).toEqual([]);
    expect(r.out).toMatch(/adopted 8 people already there/);
    const exported = path.join(shell.root, "access");
    expect(JSON.parse(fs.readFileSync(path.join(exported, "package.json"), "utf8")).dependencies["pulumi-reviewadmin"]).toBe(
      `file:vendor/${path.basename(tarball)}`,
    );
    // The key came from REVIEWADMIN_API_KEY, not the stack's config: the state has none of it.
    const checkpoint = JSON.parse(fs.readFileSync(path.join(shell.backend, ".pulumi/stacks/access/prod.json"), "utf8"));
    const provider = checkpoint.checkpoint.latest.resources.find((res: any) => res.type === "pulumi:providers:pulumi-nodejs");
    expect(Object.keys(provider.inputs)).toEqual(["reviewadmin:baseUrl"]);
    expect(JSON.stringify(checkpoint)).not.toContain(emu.keys.orgAdmin!.split(".")[1]);
  });

  it("Configuration, then the doctor on that stack's config", async () => {
    expect((await pulumi(["stack", "init", "configuration"])).code).toBe(0);
    const r = await shell.bash(scriptOf(STORIES.configuration), { cwd: project });
    expect(r.code, r.out).toBe(0);
    const doctor = await shell.run("npx", ["--no-install", "pulumi-reviewadmin", "doctor"], { cwd: project });
    expect(doctor.code, doctor.out).toBe(0);
    expect(doctor.out).toContain("apiKey: stack configuration: reviewadmin:apiKey");
    expect(doctor.out).toContain("25 requests/s configured");
  });

  it("the policy pack as installed, with the example's policy config", async () => {
    resetWorld();
    await stackFor("policy");
    fs.writeFileSync(path.join(project, "index.ts"), codeOf(PROGRAMS[0]!));
    fs.copyFileSync(path.join(repoRoot, "examples/access-baseline/policy-config.json"), path.join(project, "policy-config.json"));
    const r = await shell.bash(scriptOf(STORIES.policy), { cwd: project });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("reviewadmin-access-guardrails");
  });

  it("Pointing it at the real service: routes against the vendor's document, then the doctor and a preview on its routes", async () => {
    resetWorld();
    await stackFor("openapi");
    fs.writeFileSync(path.join(project, "index.ts"), codeOf(PROGRAMS[0]!));
    // The vendor's document: here the built-in routes written as one (the emulator serves those).
    const doc = await shell.run("npx", ["--no-install", "pulumi-reviewadmin", "routes", "--openapi-out", "vendor-openapi.yaml"], {
      cwd: project,
    });
    expect(doc.code, doc.out).toBe(0);
    const r = await shell.bash(scriptOf(STORIES.routes), { cwd: project });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/routes\s+\d+ read-only calls answered as expected/);
  });

  it("The emulator: started as shown, the key it printed set in the stack, the doctor passes", async () => {
    expect((await pulumi(["stack", "init", "emulator"])).code).toBe(0);
    const block = blockOf(STORIES.emulator.block);
    const start = commandPart(block.lines[0]!).trim();
    expect(start).toBe(STORIES.emulator.block);
    // Port 0: a free port (8080 may be taken on this machine); the URL it prints replaces the README's.
    const emulator = await shell.background(start.replace("--port 8080", "--port 0"), { cwd: project, ready: /Press Ctrl-C/ });
    try {
      const url = /API base URL:\s+(\S+)/.exec(emulator.out())![1]!;
      const key = /^\s+orgAdmin\s+(\S+)/m.exec(emulator.out())![1]!;
      const rest = { ...STORIES.emulator, notRun: { [start]: "started above, in the background" } };
      const r = await shell.bash(
        scriptOf(rest, [
          ["http://127.0.0.1:8080", url],
          ["<the orgAdmin key it printed>", key],
        ]),
        { cwd: project },
      );
      expect(r.code, r.out).toBe(0);
      const doctor = await shell.run("npx", ["--no-install", "pulumi-reviewadmin", "doctor"], { cwd: project });
      expect(doctor.code, doctor.out).toBe(0);
      expect(doctor.out).toContain(`base URL      ${url} (stack emulator: reviewadmin:baseUrl)`);
      expect(doctor.out).toMatch(/acts as\s+Ada Lovelace/);
    } finally {
      await emulator.stop();
    }
    expect(JSON.parse(fs.readFileSync(path.join(project, ".emulator.json"), "utf8"))).toBeTypeOf("object");
  });
});
