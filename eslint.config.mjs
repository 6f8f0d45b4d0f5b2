// Lint for the whole repository (`npm run lint`). Formatting is prettier's (`npm run format`); the
// layer rules are dependency-cruiser's (.dependency-cruiser.cjs).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".ci/node/**", "bench/results/**", "**/fixtures/**/*.cjs", "**/*.d.cts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Each resource class merges with an interface of its outputs on purpose: the outputs are
      // typed once, from the state type (provider/resources/support/resourceClass.ts).
      "@typescript-eslint/no-unsafe-declaration-merging": "off",
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      // `require` is how the serialized provider shim and the CLI load code lazily.
      "@typescript-eslint/no-require-imports": "off",
      // A deliberately unused binding starts with `_` (destructuring that drops a key).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Rooms stay small enough to read: no source file over 600 lines (generated code aside).
    ignores: ["**/*.generated.ts"],
    rules: { "max-lines": ["error", { max: 600 }] },
  },
  {
    // What a Pulumi program loads: @pulumi/pulumi's index also loads its Automation API and,
    // through closure serialization, TypeScript (0.6 s of a program's start, before any resource
    // reaches the engine: docs/engine.md). Values come from the SDK's own modules; types are free.
    // undici (0.13 s) is loaded at the first request: a no-change run sends none.
    files: ["provider/**", "contract/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            ...["@pulumi/pulumi", "@pulumi/pulumi/runtime"].map((name) => ({
              name,
              allowTypeImports: true,
              message:
                "import values from the SDK's own module (@pulumi/pulumi/output, /resource, /log, /config, /runtime/settings ...): the index loads TypeScript",
            })),
            {
              name: "undici",
              allowTypeImports: true,
              message:
                "take undici's values from undici() (client/transport.ts): loaded at the first request, not at every process's start",
            },
          ],
        },
      ],
    },
  },
  {
    // The run is a value (provider/resources/support/run.ts): no state at a module's top level in
    // provider/, so a test can serve many runs in one process. A store that must live in the
    // process says why on the line above it (`eslint-disable-next-line no-restricted-syntax --
    // process-wide: ...`); test/architecture/moduleState.test.ts holds the list of them.
    files: ["provider/**"],
    ignores: ["**/*.generated.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...["Program > VariableDeclaration", "Program > ExportNamedDeclaration > VariableDeclaration"].flatMap((decl) => [
          {
            selector: `${decl}[kind=/^(let|var)$/]`,
            message: "no `let` at a module's top level in provider/: a run's state belongs to its Run (resources/support/run.ts)",
          },
          {
            selector: `${decl} > VariableDeclarator > NewExpression.init[callee.name=/^(Map|Set|WeakMap|WeakSet)$/][arguments.length=0]`,
            message: "no store at a module's top level in provider/: a run's state belongs to its Run (resources/support/run.ts)",
          },
        ]),
        {
          selector: "Identifier[name='globalThis']",
          message: "no slot on globalThis in provider/: a run's state belongs to its Run (resources/support/run.ts)",
        },
      ],
    },
  },
  {
    // `any` only where the engine's untyped wire format is spoken: the tests and the harness.
    files: ["test/**", "harness/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Node's CommonJS and plain-JavaScript tooling files.
    files: ["**/*.cjs", "scripts/**/*.js", "tools/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly", process: "readonly", __dirname: "readonly", console: "readonly" },
    },
  },
);
