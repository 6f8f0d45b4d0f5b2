/**
 * The API contract, shared by the client, the emulator and the tests: the route table (routes as
 * data), routing over it, entity schemas, parameter rules, the custodian CSV format and the API
 * key's shape. It imports nothing else of the project.
 */
export * from "./routes";
export * from "./routing";
export * from "./schemas";
export { ParameterError, parseOrThrow } from "./params";
export * as params from "./params";
export * from "./custodianCsv";
export * from "./apiKey";
