/**
 * The review packet's evidence (issue 36): manifest.json records how the packet was produced
 * (versions, the service's clock, the command line without secrets, the requests), every page
 * read with the items the API answered against the totals the packet holds, and the SHA-256 of
 * each file; two runs at the same "as of" are byte-identical, manifest included; `review verify`
 * names an altered, a missing and an added file and exits 1.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { apiKeyParts } from "../../contract/apiKey";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { reviewCommand } from "../../cli/review";
import type { ReviewPacket } from "../../cli/review/format";
import { commandLine, endpointsRead, sha256, type Manifest } from "../../cli/review/manifest";
import { useReviewEmulator, T0 } from "./reviewEmulator";
import { runCli } from "./runCli";

const { world, review } = useReviewEmulator("evidence");
const filesOf = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f))]),
  );
const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;

describe("review: the evidence manifest", () => {
  it("records versions, the service's clock, the command line, each page read against the packet, and each file's SHA-256", async () => {
    const out = path.join(world.tmp, "packet");
    world.emu.traffic.log.reset();
    const r = await review(out, "--as-of", new Date(T0).toISOString(), "--firm-domain", "northwind.example", "--json");
    expect(r, r.err).toMatchObject({ code: 0 });
    const m = manifestOf(out);
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "../../package.json"), "utf8"));
    // The tool's build and the repository the review ran in (here both this checkout), and the key without its secret.
    const head = spawnSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(m.tool).toEqual({
      name: "pulumi-reviewadmin",
      version: pkg.version,
      commit: head,
      dirty: expect.any(Boolean),
      from: "the source checkout it runs from",
    });
    expect(m.accessRepository).toEqual({ commit: head, dirty: m.tool.dirty });
    expect(m.key).toEqual({ id: apiKeyParts(world.emu.keys.orgAdmin!)!.id, actsAs: "Ada Lovelace <ada@northwind.example> (user 1001)" });
    expect(JSON.stringify(m)).not.toContain(apiKeyParts(world.emu.keys.orgAdmin!)!.secret);
    expect(m.api.version).toBe("v1");
    expect(m.asOf).toBe(new Date(T0).toISOString());
    expect(m.serviceClockAtRead).toBe(new Date(T0).toISOString());
    expect(m.service).toBe(world.emu.url.replace(/\/?$/, "/"));
    expect(m.commandLine).toBe(
      `pulumi-reviewadmin review --out ${out} --firm-domain northwind.example --as-of 2026-11-20T12:00:00.000Z --api-key-file ${world.keyFile} --base-url ${world.emu.url.replace(/\/?$/, "/")} --requests-per-second 1000 --quiet --json`,
    );
    expect(m.commandLine).not.toContain(world.emu.keys.orgAdmin!);
    // Credentials or a token in a base URL do not reach the manifest; values a shell would split are quoted.
    expect(
      commandLine(reviewCommand, {
        "base-url": "https://user:secret@api.example.com/v1?token=abc",
        "firm-domain": ["a.example"],
        out: "my review",
      }),
    ).toBe("pulumi-reviewadmin review --out 'my review' --firm-domain a.example --base-url https://api.example.com/v1");
    expect(m.requests).toBe(world.emu.traffic.log.counters.total);
    expect(m.requests).toBe(JSON.parse(r.out).requests);
    // Every successful answer is a page of the manifest (the refused database read is a request, not a page).
    expect(m.reads.reduce((n, x) => n + x.pages.length, 0)).toBe(m.requests - 1);
    const packet = JSON.parse(fs.readFileSync(path.join(out, "review.json"), "utf8"));
    const org = packet.organizations[0];
    const members = m.reads.find((x) => x.operation === "GetOrganizationUsers")!;
    expect(members).toMatchObject({ endpoint: `/v1/organizations/${SEEDED.org}/users`, agrees: true, explained: [] });
    expect(members.reported).toBe(world.emu.store.members.of(SEEDED.org).length);
    expect(members.packet!.count).toBe(org.people.filter((p: any) => p.lines.some((l: any) => l.status === "member")).length);
    const events = m.reads.find((x) => x.operation === "GetOrganizationEvents")!;
    expect(events.packet!.count).toBe(org.eventsRead);
    expect(m.reads.every((x) => x.agrees)).toBe(true);
    expect(m.agrees).toBe(true);
    // A database whose user list holds people without a permission says so, and still agrees.
    for (const x of m.reads.filter((y) => y.operation === "GetDatabaseUsers"))
      expect(x.reported).toBe(x.packet!.count + x.explained.reduce((n, e) => n + e.count, 0));
    // The files hashed are the files written; the manifest does not hash itself.
    expect(Object.keys(m.files)).toEqual(["review.csv", "review.html", "review.json", "review.md"]);
    for (const [f, digest] of Object.entries(m.files)) expect(sha256(fs.readFileSync(path.join(out, f))), f).toBe(digest);
  });

  it("says where the API's counts and the packet's totals do not agree", () => {
    const packet = {
      organizations: [
        {
          id: 7,
          databases: [],
          databasesNotReadable: [],
          eventsRead: 0,
          people: [{ key: "a@x.example", lines: [{ scope: "organization", status: "member" }] }],
        },
      ],
    } as unknown as ReviewPacket;
    const answers = [
      { operationId: "GetOrganizationUsers", path: "/v1/organizations/7/users?limit=200", data: [{ id: 1 }, { id: 2 }] },
      { operationId: "GetOrganizationUsers", path: "/v1/organizations/7/users?after=2&limit=200", data: [{ id: 3 }] },
    ];
    expect(endpointsRead(answers, packet)).toEqual([
      {
        operation: "GetOrganizationUsers",
        endpoint: "/v1/organizations/7/users",
        pages: [2, 1],
        reported: 3,
        packet: { count: 1, of: "member lines" },
        explained: [],
        agrees: false,
      },
    ]);
  });

  it("two runs at the same --as-of are byte-identical, manifest included", async () => {
    const out = path.join(world.tmp, "twice");
    const asOf = new Date(T0).toISOString();
    expect(await review(out, "--as-of", asOf)).toMatchObject({ code: 0 });
    const first = filesOf(out);
    expect(await review(out, "--as-of", asOf, "--force")).toMatchObject({ code: 0 });
    expect(Object.keys(first)).toContain("manifest.json");
    expect(filesOf(out)).toEqual(first);
  });

  it("never replaces a packet silently: only with --force or --previous naming it, and refused before any request", async () => {
    const out = path.join(world.tmp, "kept");
    expect(await review(out, "--as-of", new Date(T0 - 1000).toISOString())).toMatchObject({ code: 0 });
    const first = filesOf(out);
    world.emu.traffic.log.reset();
    const refused = await review(out);
    expect(refused.code).toBe(2);
    expect(refused.err.trim()).toBe(
      `pulumi-reviewadmin review: --out ${out} holds a review packet already: pass --force to replace it, or --previous ${out} to replace it with what changed since (see pulumi-reviewadmin review --help)`,
    );
    expect(filesOf(out)).toEqual(first);
    expect(world.emu.traffic.log.counters.total).toBe(0);
    // The documented rewrite of the committed packet: read as the previous review, then replaced.
    expect(await review(out, "--previous", out)).toMatchObject({ code: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(out, "review.json"), "utf8")).asOf).toBe(new Date(T0).toISOString());
    // --force replaces it, and says nothing of it in the manifest's command line.
    expect(await review(out, "--as-of", new Date(T0 - 1000).toISOString(), "--force")).toMatchObject({ code: 0 });
    expect(filesOf(out)).toEqual(first);
  });

  it("review verify passes an untouched packet and names an altered, a missing and an added file (exit 1)", async () => {
    const out = path.join(world.tmp, "verify");
    expect(await review(out)).toMatchObject({ code: 0 });
    const ok = await runCli(["review", "verify", out]);
    expect(ok, ok.err).toMatchObject({ code: 0 });
    expect(ok.out).toContain("the packet is as the review wrote it: 4 files match manifest.json");

    fs.appendFileSync(
      path.join(out, "review.csv"),
      "102,Northwind Legal,mallory@evil.example,,,organization,,member,ORG_ADMIN,,,,,,,,keep,\r\n",
    );
    fs.rmSync(path.join(out, "review.md"));
    fs.writeFileSync(path.join(out, "notes.txt"), "added later");
    const bad = await runCli(["review", "verify", out]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("1 altered, 1 missing, 1 not listed");
    expect(bad.out).toContain("altered review.csv");
    expect(bad.out).toContain("missing review.md");
    expect(bad.out).toContain("not listed notes.txt");
    const json = JSON.parse((await runCli(["review", "verify", out, "--json"])).out);
    expect(json).toMatchObject({
      verified: false,
      altered: ["review.csv"],
      missing: ["review.md"],
      unlisted: ["notes.txt"],
      ok: ["review.html", "review.json"],
    });
  });

  it("review verify: bad input is one line naming the rule (exit 2); --help names FOLDER", async () => {
    const none = await runCli(["review", "verify"]);
    expect(none).toMatchObject({ code: 2 });
    expect(none.err).toContain("FOLDER is required");
    const empty = fs.mkdtempSync(path.join(world.tmp, "empty-"));
    const noManifest = await runCli(["review", "verify", empty]);
    expect(noManifest).toMatchObject({ code: 2 });
    expect(noManifest.err).toContain("FOLDER must hold the manifest.json a review wrote");
    expect(noManifest.err).not.toMatch(/\n\s+at /);
    const two = await runCli(["review", "verify", empty, "other"]);
    expect(two.err).toContain("unexpected argument 'other'");
    const help = await runCli(["review", "verify", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage: pulumi-reviewadmin review verify [options] FOLDER");
    expect(help.out).toContain("exits 1");
  });
});
