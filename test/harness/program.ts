/** Re-export: the harness lives in harness/ (compiled, so the demo and the benchmark use it too). */
export * from "../../harness/program/stack";
export { PROVIDER_KEY, UNKNOWN } from "../../harness/wire";
