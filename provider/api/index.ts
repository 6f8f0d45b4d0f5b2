/** The API model: route table, entity schemas and parameter rules. */
export * from "./routes";
export * from "./schemas";
export { ParameterError, parseOrThrow } from "./params";
export * as params from "./params";
