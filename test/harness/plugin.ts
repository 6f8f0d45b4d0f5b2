/** Re-export: the harness lives in harness/ (compiled, so the demo and the benchmark use it too). */
export * from "../../harness/pluginDriver";
export * from "../../harness/resourceDriver";
export * from "../../harness/steps";
export { PROVIDER_KEY, UNKNOWN, type Props } from "../../harness/wire";
