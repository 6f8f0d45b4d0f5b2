/**
 * The plugin face's schema is generated from the resources' own types (scripts/generate-schema.mts):
 * the committed files (the schema, docs/plugin-reference.md and docs/resources.md's tables) are what
 * the generator prints today, every resource has its section in docs/resources.md, every registered resource kind is in it
 * (a kind added later reaches the plugin face without a hand edit), and its enums are the
 * contract's lists.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { generateSchema, resourcesDocOf, ROOT } from "../../scripts/generate-schema.mjs";
import { ORGANIZATION_PERMISSIONS } from "../../contract/grants";
import { resourceKinds } from "../../provider/runtime";
import { SCHEMA } from "../../provider/plugin/schema.generated";
import { IMPORT_IDS } from "../../provider/plugin/importIds";

describe("the plugin face's schema", () => {
  it("and its reference are what `npm run generate` writes from the resources' types", { timeout: 120_000 }, async () => {
    const files = await generateSchema();
    expect(files.map((f) => f.path)).toEqual(["provider/plugin/schema.generated.ts", "docs/plugin-reference.md", "docs/resources.md"]);
    for (const file of files) {
      const committed = fs.existsSync(path.join(ROOT, file.path)) ? fs.readFileSync(path.join(ROOT, file.path), "utf8") : "(missing)";
      expect(committed, `${file.path} is stale: run \`npm run generate\` and commit the result`).toBe(file.text);
    }
  });

  it("refuses a docs/resources.md that leaves a resource out or names one that does not exist", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/resources.md"), "utf8");
    const schema = SCHEMA as unknown as Parameters<typeof resourcesDocOf>[0];
    expect(resourcesDocOf(schema, doc)).toBe(doc);
    const withoutWall = doc.replace(/<!-- schema: EthicalWall -->[\s\S]*?<!-- \/schema -->/, "");
    expect(() => resourcesDocOf(schema, withoutWall)).toThrow(/no <!-- schema: Kind --> <!-- \/schema --> region for EthicalWall/);
    expect(() => resourcesDocOf(schema, `${doc}\n<!-- schema: Wall -->\n<!-- /schema -->\n`)).toThrow(
      /<!-- schema: Wall --> names no resource/,
    );
  });

  it("has every resource kind the provider registers, with its inputs and their docs", () => {
    expect(Object.keys(SCHEMA.resources).sort()).toEqual(
      resourceKinds()
        .map((k) => `reviewadmin:index:${k}`)
        .sort(),
    );
    const member = SCHEMA.resources["reviewadmin:index:OrgMember"];
    expect(member.requiredInputs).toEqual(["organizationId", "email"]);
    expect(member.inputProperties.organizationId.type).toBe("integer");
    expect(member.inputProperties.email.description).toMatch(/case-insensitively/);
    const permission = SCHEMA.types["reviewadmin:index:OrganizationPermission"];
    expect(permission.enum.map((e) => e.value)).toEqual([...ORGANIZATION_PERMISSIONS].sort());
    expect(SCHEMA.config.variables.apiKey.secret).toBe(true);
  });

  it("documents an import id for every access kind", () => {
    expect(Object.keys(IMPORT_IDS).sort()).toEqual([
      "DatabaseUserPermissions",
      "DatabaseUsers",
      "Invitation",
      "OrgMember",
      "OrgMemberPermissions",
      "OrganizationMembers",
      "UserIdentifiers",
    ]);
  });
});
