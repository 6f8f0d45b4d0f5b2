/**
 * `pulumi-reviewadmin export --per-organization` against the emulator, run in this process: one
 * project per organization in a folder named after it, each what `export --org ID` writes for that
 * organization alone (so each stack adopts only its organization's access), a sub-organization in
 * a project of its own, folders and project names kept when exporting again after a rename, and
 * the walls refused. The projects run under the real engine (each adopts with 0 writes, and their
 * union declares what the one-stack export declares): test/engine/exportPerOrganization.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { organizationFolders, slugOf } from "../../cli/export/perOrganization";
import { SEEDED } from "../../emulator";
import { adaAdministersEveryOrganization, useExportWorld } from "./exportWorld";

const { emu, newDir, exportWith } = useExportWorld("export-per-organization");

const FOLDERS = ["northwind-holdings", "northwind-legal", "northwind-compliance", "contoso-llp"];
const read = (...parts: string[]) => fs.readFileSync(path.join(...parts), "utf8");
/** The project files of a folder, by name (node_modules left out). */
const filesOf = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f !== "node_modules")
      .sort()
      .map((f) => [f, read(dir, f)]),
  );

describe("pulumi-reviewadmin export --per-organization: four organizations, a parent and its two children among them", () => {
  beforeEach(() => {
    emu.reset();
    adaAdministersEveryOrganization(emu);
  });

  it("writes one project per organization, each what `export --org ID` writes for it alone, and says where", async () => {
    const out = path.join(newDir("per-org"), "access");
    const r = await exportWith(["--per-organization", "--out", out, "--json", "--quiet"]);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary.projects).toEqual([
      { id: SEEDED.parentOrg, folder: "northwind-holdings", project: "access-northwind-holdings" },
      { id: SEEDED.org, folder: "northwind-legal", project: "access-northwind-legal" },
      { id: SEEDED.subOrg, folder: "northwind-compliance", project: "access-northwind-compliance" },
      { id: SEEDED.otherOrg, folder: "contoso-llp", project: "access-contoso-llp" },
    ]);
    expect(fs.readdirSync(out).sort()).toEqual([...FOLDERS].sort());

    for (const p of summary.projects as { id: number; folder: string; project: string }[]) {
      const dir = path.join(out, p.folder);
      expect(read(dir, "Pulumi.yaml")).toMatch(new RegExp(`^name: ${p.project}\\n`));
      // Only its own organization: one block in access.ts.
      expect([...read(dir, "access.ts").matchAll(/^ {4}id: (\d+),$/gm)].map((m) => Number(m[1]))).toEqual([p.id]);
      // The same files as an export of that organization alone, under the same project name.
      const alone = newDir(`alone-${p.id}`);
      const single = await exportWith(["--org", String(p.id), "--project", p.project, "--out", alone, "--quiet"]);
      expect(single.code, single.err).toBe(0);
      const { "README.md": readme, ...files } = filesOf(dir);
      const { "README.md": aloneReadme, ...aloneFiles } = filesOf(alone);
      expect(files).toEqual(aloneFiles);
      // Its README re-exports that organization alone into its folder (the name is kept from its Pulumi.yaml).
      expect(readme).toContain(`npx --no-install pulumi-reviewadmin export --org ${p.id} --out . --force`);
      expect(aloneReadme).toContain(`--org ${p.id} --project ${p.project} --out . --force`);
    }
    // A sub-organization's access is in its own project, never its parent's: 2003 (owned by 103) and 103's invitation.
    expect(read(out, "northwind-compliance", "access.ts")).toContain("id: 2003,");
    expect(read(out, "northwind-holdings", "access.ts")).not.toContain("id: 2003,");
    expect(read(out, "northwind-holdings", "access.ts")).not.toContain(SEEDED.invitations.subOrgPending);
    expect(read(out, "northwind-compliance", "access.ts")).toContain(SEEDED.invitations.subOrgPending);
  });

  it("the text summary names each folder and project; --project names the projects' first part", async () => {
    const out = path.join(newDir("named"), "firm");
    const r = await exportWith(["--per-organization", "--project", "acme-access", "--out", out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      `One project per organization: ${path.join(out, "northwind-holdings")} (organization ${SEEDED.parentOrg}, project acme-access-northwind-holdings),`,
    );
    expect(r.out).toContain(`docs/gitops.md, "One stack per organization"`);
    expect(read(out, "contoso-llp", "Pulumi.yaml")).toMatch(/^name: acme-access-contoso-llp\n/);
  });

  it("exporting again after an organization is renamed keeps its folder and project name (its stacks are named after them)", async () => {
    const out = path.join(newDir("renamed"), "access");
    expect((await exportWith(["--per-organization", "--out", out, "--quiet"])).code).toBe(0);
    emu.store.organizations.get(SEEDED.otherOrg).name = "Contoso Partners LLP";
    const again = await exportWith(["--per-organization", "--out", out, "--force", "--json", "--quiet"]);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out).projects).toContainEqual({ id: SEEDED.otherOrg, folder: "contoso-llp", project: "access-contoso-llp" });
    expect(fs.readdirSync(out).sort()).toEqual([...FOLDERS].sort());
    expect(read(out, "contoso-llp", "access.ts")).toContain('name: "Contoso Partners LLP",');
  });

  it("refuses --walls: a wall may close databases of several organizations", async () => {
    const out = newDir("walls");
    const walls = path.join(newDir("walls-file"));
    fs.writeFileSync(walls, "matter,person\n");
    const r = await exportWith(["--per-organization", "--walls", walls, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--walls with --per-organization");
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe("the folders of a per-organization export", () => {
  it("are the organizations' names made folder names; two of the same name, or a name with none, get the id", () => {
    expect(slugOf("Müller & Söhne, Rechtsanwälte")).toBe("muller-sohne-rechtsanwalte");
    const orgs = [
      { id: 7, name: "Contoso LLP" },
      { id: 8, name: "Contoso, LLP" },
      { id: 9, name: "北风" },
      { id: 10, name: "Fabrikam" },
    ];
    expect(organizationFolders(newDir("none-yet"), orgs).map((o) => o.folder)).toEqual([
      "contoso-llp-7",
      "contoso-llp-8",
      "organization-9",
      "fabrikam",
    ]);
  });

  it("keep an earlier export's folder of the organization, and never take another organization's", () => {
    const out = newDir("earlier");
    fs.mkdirSync(path.join(out, "fabrikam"), { recursive: true });
    fs.writeFileSync(path.join(out, "fabrikam", "access.ts"), '  {\n    id: 11,\n    name: "Fabrikam",\n');
    fs.mkdirSync(path.join(out, "old-name"), { recursive: true });
    fs.writeFileSync(path.join(out, "old-name", "access.ts"), '  {\n    id: 10,\n    name: "Old Name",\n');
    const folders = organizationFolders(out, [
      { id: 10, name: "Fabrikam" },
      { id: 12, name: "Fabrikam Two" },
    ]);
    expect(folders.map((o) => o.folder)).toEqual(["old-name", "fabrikam-two"]);
    // 11's folder is "fabrikam": a new organization of that name gets its id.
    expect(organizationFolders(out, [{ id: 13, name: "Fabrikam" }]).map((o) => o.folder)).toEqual(["fabrikam-13"]);
  });
});
