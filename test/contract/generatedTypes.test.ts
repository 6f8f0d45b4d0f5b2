/**
 * The committed generated types (contract/types.generated.ts, provider/data/argTypes.generated.ts)
 * against what scripts/generate-types.mts prints from the schemas today: a schema, a route or a
 * data-source tag changed without regenerating fails here, naming the file and the command.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { generateTypes, ROOT } from "../../scripts/generate-types.mjs";

describe("generated types", () => {
  it("are what `npm run generate` writes from the schemas and the route table", { timeout: 120_000 }, async () => {
    const files = await generateTypes();
    expect(files.map((f) => f.path)).toEqual(["contract/types.generated.ts", "provider/data/argTypes.generated.ts"]);
    for (const file of files) {
      const target = path.join(ROOT, file.path);
      const committed = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "(missing)";
      expect(committed, `${file.path} is stale: run \`npm run generate\` and commit the result`).toBe(file.text);
    }
  });
});
