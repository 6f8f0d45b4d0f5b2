/**
 * The engine's own floor for a program's size (issue 35): the same CLI, backend and
 * dynamic-provider plugin running as many resources as the exported program declares, whose
 * provider does nothing (no check, a diff that finds no change, tiny inputs). A no-change `up` or
 * `preview` of the exported program reads against it: what is above it is this package's (the
 * rosters' data, our modules, our Check and Diff); what is below it no provider can take away.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Writes, into the exported project's bin folder (so it resolves the project's own
 * `@pulumi/pulumi`), a program of `count` dynamic resources that do nothing; returns its path.
 * The provider text is one line, as this package's is (resourceClass.ts), so the floor pays no
 * closure serialization either.
 */
export function floorProgram(project: string, count: number): string {
  const file = path.join(project, "bin", "floor.js");
  const provider =
    "exports.handler = () => ({ create: async (i) => ({ id: i.name, outs: {} }), diff: async () => ({ changes: false }) });\n";
  fs.writeFileSync(
    file,
    [
      `// ${count} dynamic resources whose provider does nothing: the engine's floor for a program of this size (bench/engineFloor.ts).`,
      'const { CustomResource } = require("@pulumi/pulumi/resource");',
      `const provider = ${JSON.stringify(provider)};`,
      `for (let i = 0; i < ${count}; i++) new CustomResource("pulumi-nodejs:dynamic:Resource", \`floor-\${i}\`, { __provider: provider, name: \`floor-\${i}\` });`,
      "",
    ].join("\n"),
  );
  return file;
}
