/**
 * The layer rules of ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser). Each rule
 * names the layer and what it may not import; an import cycle anywhere fails too.
 */
const project = "^(contract|provider|emulator|cli|policy|harness|demo|bench|examples|scripts|test)/";

/** A rule that `from` may import nothing of the project but `allowed` (regexes of paths). */
function onlyImports(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: "error",
    from: { path: from },
    to: { path: project, pathNot: [from, ...allowed] },
  };
}

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment:
        "No import cycle, type-only imports included: a cycle at run time makes load order matter, and a type-only one means a type lives above the code that needs it, so the folder no longer reads bottom-up (emulator/model/ was one 13-file circle closed by type imports).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    onlyImports(
      "contract-stands-alone",
      "^contract/",
      [],
      "The contract (routes, schemas, params, custodian CSV) is data shared by every side: it imports nothing of the project.",
    ),
    onlyImports(
      "emulator-imports-contract-only",
      "^emulator/",
      ["^contract/"],
      "The emulator is a separate service: it shares only the contract with the provider.",
    ),
    onlyImports(
      "emulator-model-knows-no-http",
      "^emulator/model/",
      ["^contract/"],
      "The emulator's world (records, rules, named errors) knows nothing of HTTP: the handlers, the control API and the server build on it, never the reverse.",
    ),
    onlyImports(
      "harness-stands-alone",
      "^harness/",
      [],
      "The harness drives Pulumi's plugin and programs; it knows nothing of this provider.",
    ),
    onlyImports(
      "provider-imports-contract",
      "^provider/",
      ["^contract/"],
      "The provider is what users install: it never imports the emulator, the CLI or test tooling.",
    ),
    onlyImports(
      "client-below-resources",
      "^provider/client/",
      ["^contract/", "^provider/util\\.ts$"],
      "The HTTP client knows routes, not resources or data sources.",
    ),
    {
      name: "data-sources-beside-resources",
      comment:
        "Data sources and resources are siblings over the client: data sources never import provider/resources (what both need, such as normalize.ts, lives in provider/).",
      severity: "error",
      from: { path: "^provider/data/" },
      to: { path: "^provider/resources/" },
    },
    {
      name: "access-below-resources",
      comment:
        "The access engine (planner, gateways, run cache, service clock) sits under the resources and the data sources: it never imports provider/resources or provider/data.",
      severity: "error",
      from: { path: "^provider/access/" },
      to: { path: "^provider/(resources|data)/" },
    },
    onlyImports(
      "policy-imports-contract",
      "^policy/",
      ["^contract/"],
      "The policy pack judges resource inputs; it shares only the contract's enums.",
    ),
    onlyImports(
      "cli-imports-shipped-code",
      "^cli/",
      ["^contract/", "^provider/", "^emulator/", "^policy/", "^package\\.json$"],
      "The CLI ships in the package: it may not reach test tooling. (The review reads a stack through the pack's model, policy/declarations.ts.)",
    ),
    {
      name: "demo-and-bench-are-leaves",
      comment: "The demo, the benchmarks and the dev scripts (scripts/: the type generator) are programs; only tests may import them.",
      severity: "error",
      from: { path: project, pathNot: ["^(demo|bench|scripts|test)/"] },
      to: { path: "^(demo|bench|scripts)/" },
    },
    {
      name: "nothing-imports-tests",
      severity: "error",
      from: { pathNot: "^test/" },
      to: { path: "^test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules|\\.ci)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
