/**
 * The emulator as a command (`pulumi-reviewadmin emulator`): options from the command line and
 * the environment, the banner and its warnings off loopback, the control token, the line per
 * request, a state file a second start finds again, and the build-once script behind
 * `npm run emulator`. The compiled command run as a user runs it, and the one-line Node check of
 * the command and the demo: test/engine/builtPackage.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main";
import type { Io } from "../../cli/command";
import { SEEDED, type RunningEmulator } from "../../emulator";
import { ReviewAdminClient } from "../../provider/client";
import { logLine, resolveSettings, startFromCommandLine, UsageError, type Output } from "../../emulator/serve";
import { api, control } from "../support/emulatorHttp";

const repoRoot = path.resolve(__dirname, "../..");

/** Output captured line by line. */
function capture(): Output & { outText: () => string; errLines: string[] } {
  const out: string[] = [];
  const errLines: string[] = [];
  return { out: (t) => void out.push(t), err: (t) => void errLines.push(t), outText: () => out.join("\n"), errLines };
}

const started: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.close()));
});

/** Starts the emulator as the command does, with `argv` values and `env`, closed after the test. */
async function start(values: Record<string, string | boolean>, env: NodeJS.ProcessEnv = {}) {
  const io = capture();
  const emu = await startFromCommandLine(values, io, env);
  started.push(emu);
  return { emu, io };
}

describe("options", () => {
  it("reads the command line, then the environment, then the defaults", () => {
    expect(resolveSettings({}, {})).toEqual({ options: { port: 8080, scale: {} }, quiet: false });
    const env = {
      REVIEWADMIN_EMULATOR_PORT: "9000",
      REVIEWADMIN_EMULATOR_HOST: "0.0.0.0",
      REVIEWADMIN_EMULATOR_STATE: "w.json",
      REVIEWADMIN_EMULATOR_SEED: "empty",
      REVIEWADMIN_EMULATOR_RATE_LIMIT: "0",
      REVIEWADMIN_EMULATOR_MEMBERS: "10",
      REVIEWADMIN_EMULATOR_QUIET: "true",
      REVIEWADMIN_EMULATOR_CONTROL_TOKEN: "ci-token-1",
    };
    expect(resolveSettings({}, env)).toEqual({
      options: {
        port: 9000,
        host: "0.0.0.0",
        stateFile: "w.json",
        seed: "empty",
        rateLimit: 0,
        scale: { members: 10 },
        controlToken: "ci-token-1",
      },
      quiet: true,
      controlTokenFrom: "REVIEWADMIN_EMULATOR_CONTROL_TOKEN",
    });
    // The command line wins; an empty variable counts as unset.
    const winner = resolveSettings({ port: "0", quiet: false }, { ...env, REVIEWADMIN_EMULATOR_HOST: "" });
    expect([winner.options.port, winner.options.host, winner.quiet]).toEqual([0, undefined, false]);
  });

  it("names the option or variable of a bad value", () => {
    const bad = (values: Record<string, string>, env: NodeJS.ProcessEnv = {}) => {
      try {
        resolveSettings(values, env);
        return "accepted";
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
    };
    expect(bad({ port: "eighty" })).toBe("--port takes a whole number up to 65535, got 'eighty'");
    expect(bad({ port: "70000" })).toBe("--port takes a whole number up to 65535, got '70000'");
    expect(bad({}, { REVIEWADMIN_EMULATOR_RATE_LIMIT: "1e3" })).toBe("REVIEWADMIN_EMULATOR_RATE_LIMIT takes a whole number, got '1e3'");
    expect(bad({}, { REVIEWADMIN_EMULATOR_QUIET: "maybe" })).toBe("REVIEWADMIN_EMULATOR_QUIET takes 1/true or 0/false, got 'maybe'");
    expect(bad({ "control-token": "short" })).toBe("--control-token takes a token of at least 8 characters");
  });

  it("parses --port=9000 and --port 9000 alike, and says what is wrong in one line", async () => {
    const lines: string[] = [];
    const io: Io = { out: (t) => void lines.push(t), err: (t) => void lines.push(t) };
    expect(await main(["emulator", "--port=nine"], io)).toBe(2);
    expect(lines).toEqual([
      "pulumi-reviewadmin emulator: --port takes a whole number up to 65535, got 'nine' (see pulumi-reviewadmin emulator --help)",
    ]);
    lines.length = 0;
    expect(await main(["emulator", "--help"], io)).toBe(0);
    expect(lines[0]).toMatch(/^Usage: pulumi-reviewadmin emulator \[options\]/);
    for (const variable of [
      "REVIEWADMIN_EMULATOR_PORT",
      "REVIEWADMIN_EMULATOR_HOST",
      "REVIEWADMIN_EMULATOR_STATE",
      "REVIEWADMIN_EMULATOR_CONTROL_TOKEN",
      "REVIEWADMIN_EMULATOR_QUIET",
      "REVIEWADMIN_EMULATOR_OPENAPI",
    ]) {
      expect(lines[0]).toContain(`[${variable}]`);
    }
  });
});

describe("on loopback", () => {
  it("says where it listens, prints the keys, and logs one line per request", async () => {
    const { emu, io } = await start({ port: "0" });
    expect(io.errLines).toEqual([]);
    const banner = io.outText();
    expect(banner).toContain(`listening on 127.0.0.1:${emu.port} (loopback: this machine only)`);
    expect(banner).toContain(`API base URL:  ${emu.url}`);
    expect(banner).toContain("open on loopback, no token");
    expect(banner).toContain(emu.keys.orgAdmin);
    expect(emu.controlToken).toBeUndefined();

    await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    await control(emu.url, "GET", "/clock");
    const lines = io.outText().split("\n").slice(-2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/users\/me 200 [\d.]+ms$/);
    expect(lines[1]).toMatch(/ GET \/_emulator\/clock 200 [\d.]+ms$/);
  });

  it("logs nothing per request with --quiet", async () => {
    const { emu, io } = await start({ port: "0", quiet: true });
    const before = io.outText();
    await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    expect(io.outText()).toBe(before);
  });

  it("requires a control token given on loopback too", async () => {
    const { emu, io } = await start({ port: "0", "control-token": "local-secret" });
    expect(io.outText()).toContain("Control token: as given by --control-token");
    expect(io.outText()).not.toContain("local-secret");
    expect((await control(emu.url, "GET", "/keys")).status).toBe(401);
    const ok = await fetch(`${emu.url}/_emulator/keys`, { headers: { "x-emulator-token": "local-secret" } });
    expect(ok.status).toBe(200);
  });

  it("starts with --state, and a second start finds the saved world", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-cli-"));
    const stateFile = path.join(dir, "demo.json");
    try {
      const first = await start({ port: "0" }, { REVIEWADMIN_EMULATOR_STATE: stateFile });
      expect(first.io.outText()).toContain(`State file:    ${stateFile}`);
      await api(first.emu.url, first.emu.keys.orgAdmin, "POST", "/v1/organizations/102/users", {
        users: [{ email: "demo.person@example.com", firstName: "Demo", lastName: "Person" }],
      });
      await first.emu.close();
      const second = await start({ port: "0", state: stateFile });
      const inv = await api(second.emu.url, second.emu.keys.orgAdmin, "GET", "/v1/organizations/102/invitations");
      expect(inv.body.data.invitations.map((i: any) => i.email)).toContain("demo.person@example.com");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says so in one line when the port is taken", async () => {
    const { emu } = await start({ port: "0", quiet: true });
    await expect(startFromCommandLine({ port: String(emu.port) }, capture(), {})).rejects.toThrow(
      `127.0.0.1:${emu.port} is in use (another emulator?): choose another port with --port or REVIEWADMIN_EMULATOR_PORT (0 picks a free one)`,
    );
  });
});

describe("--openapi", () => {
  const renamed = path.join(repoRoot, "test/fixtures/openapi/renamed.yaml");

  it("serves every operation on the document's routes, and says so in the banner", async () => {
    const { emu, io } = await start({ port: "0", openapi: renamed });
    expect(io.outText()).toContain(`API base URL:  ${emu.url}   (paths start with /api/v2; send Authorization: Bearer <key>)`);
    expect(io.outText()).toContain(`Routes:        from ${renamed} (the provider needs the same document: reviewadmin:openapi)`);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/api/v2/account")).status).toBe(200);
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(404);
    expect(io.outText().split("\n").slice(-2)[0]).toMatch(/ GET \/api\/v2\/account 200 [\d.]+ms$/);
    expect(resolveSettings({}, { REVIEWADMIN_EMULATOR_OPENAPI: renamed }).options.openapi).toBe(renamed);
  });

  it("refuses in one line a document that cannot serve every operation", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-openapi-"));
    try {
      const doc = path.join(dir, "empty.yaml");
      fs.writeFileSync(doc, "openapi: 3.1.0\npaths: {}\n");
      const lines: string[] = [];
      const io: Io = { out: (t) => void lines.push(t), err: (t) => void lines.push(t) };
      expect(await main(["emulator", "--port", "0", "--openapi", doc], io)).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^pulumi-reviewadmin emulator: ${doc.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 35 operations of the route table cannot be mapped: GetDatabases: not in the document \\(no operation has this operationId\\); GetCurrentUser: `,
        ),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("off loopback", () => {
  it("warns, makes a control token, and protects the control API with it; health needs none", async () => {
    const { emu, io } = await start({ port: "0", host: "0.0.0.0", quiet: true });
    expect(io.errLines).toHaveLength(2);
    expect(io.errLines[0]).toMatch(
      /^emulator: warning: listening on 0\.0\.0\.0, not loopback: anyone who can reach port \d+ can call the API/,
    );
    expect(io.errLines[1]).toMatch(/control API \(which hands out every key\) answers only requests with the header X-Emulator-Token/);
    const banner = io.outText();
    expect(banner).toContain(`listening on 0.0.0.0:${emu.port} (every interface`);
    expect(banner).toContain(`from elsewhere http://${os.hostname()}:${emu.port}`);
    expect(banner).toContain("REVIEWADMIN_INSECURE_HTTP_HOSTS");
    expect(emu.controlToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(banner).toContain(`Control token: ${emu.controlToken}`);

    const refused = await control(emu.url, "GET", "/keys");
    expect(refused.status).toBe(401);
    expect(refused.body.title).toMatch(/X-Emulator-Token/);
    const wrong = await fetch(`${emu.url}/_emulator/keys`, { headers: { "x-emulator-token": "not-the-token" } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${emu.url}/_emulator/keys`, { headers: { "x-emulator-token": emu.controlToken! } });
    expect(ok.status).toBe(200);
    const health = await control(emu.url, "GET", "/health");
    expect(health).toMatchObject({ status: 200, body: { data: { status: "ok", controlTokenRequired: true } } });
    // The API itself is unchanged: keys as ever.
    expect((await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me")).status).toBe(200);
  });

  it("serves the provider's client from another host, named in insecureHttpHosts: links and part URLs follow the host it was reached by", async () => {
    const { emu } = await start({ port: "0", host: "0.0.0.0", quiet: true, "rate-limit": "0" });
    // 0.0.0.0 is not a loopback name, as another container's name for the emulator would not be, yet it reaches this machine.
    const baseUrl = `http://0.0.0.0:${emu.port}`;
    const warnings: string[] = [];
    const client = new ReviewAdminClient({
      baseUrl,
      apiKey: emu.keys.orgAdmin,
      insecureHttpHosts: ["0.0.0.0"],
      warn: (l) => void warnings.push(l),
    });
    try {
      const members = await client.listAll("GetOrganizationUsers", { orgId: SEEDED.org, limit: 2 });
      expect(members.length).toBeGreaterThan(4);
      const logged = emu.traffic.log.list("GetOrganizationUsers");
      expect(logged.length).toBeGreaterThan(2);
      expect(warnings).toEqual([
        expect.stringMatching(/^reviewadmin: plain http to http:\/\/0\.0\.0\.0:\d+ \(baseUrl\), allowed by the insecureHttpHosts setting/),
      ]);
    } finally {
      await client.close();
    }
  });
});

describe("log lines", () => {
  it("shows method, path, status and milliseconds; a part URL's credential only in part; no answer as -", () => {
    const at = new Date("2025-03-04T05:06:07.089Z");
    const entry = { method: "GET", path: "/v1/databases?limit=5", operation: "GetDatabases", status: 200, account: "u:1", durationMs: 3.4 };
    expect(logLine(entry, at)).toBe("05:06:07.089 GET /v1/databases?limit=5 200 3.4ms");
    expect(logLine({ ...entry, method: "PUT", path: "/_upload/0123456789abcdef0123", status: 0 }, at)).toBe(
      "05:06:07.089 PUT /_upload/01234567... - (no answer) 3.4ms",
    );
  });
});

describe("scripts/build.js (npm run emulator, demo and bench start from dist)", () => {
  const { staleReason, nodeWarning, buildInfo } = createRequire(__filename)(path.join(repoRoot, "scripts/build.js")) as {
    staleReason: (root: string) => string | undefined;
    nodeWarning: (root: string, version?: string) => string | undefined;
    buildInfo: (root: string) => { version: string; commit: string | null; dirty?: boolean; why?: string };
  };

  it("stamps the version and the commit it builds from into dist/build-info.json (a review's manifest names them)", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    const head = spawnSync("git", ["-C", repoRoot, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(buildInfo(repoRoot)).toEqual({ version: pkg.version, commit: head, dirty: expect.any(Boolean) });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-build-info-"));
    try {
      fs.writeFileSync(path.join(outside, "package.json"), JSON.stringify({ version: "9.9.9" }));
      expect(buildInfo(outside)).toEqual({ version: "9.9.9", commit: null, why: "built outside a git checkout" });
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("says in one line, at install and build, when this Node is too old to run what it builds", () => {
    expect(nodeWarning(repoRoot, "20.20.2")).toBe(
      "warning: pulumi-reviewadmin needs Node 22.19 or newer (Node 24 recommended); this is Node 20.20.2: it builds, but the provider, the emulator and the demo will not run.",
    );
    expect(nodeWarning(repoRoot, "22.19.0")).toBeUndefined();
    expect(nodeWarning(repoRoot)).toBeUndefined();
  });

  it("builds only when dist was never built or a source is newer than the last build", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "build-stamp-"));
    try {
      fs.writeFileSync(path.join(root, "tsconfig.build.json"), JSON.stringify({ include: ["src"] }));
      fs.mkdirSync(path.join(root, "src/sub"), { recursive: true });
      const source = path.join(root, "src/sub/a.ts");
      fs.writeFileSync(source, "export {};\n");
      expect(staleReason(root)).toBe("dist/ has not been built here yet");
      fs.mkdirSync(path.join(root, "dist"));
      const stamp = path.join(root, "dist/.build-stamp");
      fs.writeFileSync(stamp, "");
      const t = Date.now() / 1000;
      fs.utimesSync(source, t - 10, t - 10);
      fs.utimesSync(stamp, t, t);
      expect(staleReason(root)).toBeUndefined();
      fs.utimesSync(source, t + 5, t + 5);
      expect(staleReason(root)).toBe("sources changed since the last build");
      // Files that are not TypeScript sources do not count.
      fs.utimesSync(source, t - 10, t - 10);
      fs.writeFileSync(path.join(root, "src/notes.md"), "x");
      fs.utimesSync(path.join(root, "src/notes.md"), t + 5, t + 5);
      expect(staleReason(root)).toBeUndefined();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("the package runs the emulator from dist and builds at install", () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.prepare).toBe("node scripts/build.js");
    expect(scripts.emulator).toBe("node scripts/build.js --if-stale && node dist/cli/main.js emulator");
    expect(scripts.demo).toMatch(/^node scripts\/build\.js --if-stale && /);
  });
});
