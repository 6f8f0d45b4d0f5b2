/**
 * Values as they travel between the engine and the plugin: the engine's markers (taken from the
 * SDK, never re-typed), Struct conversion, secrets, value comparison and the gRPC message limit.
 * Shared by the plugin driver, the resource driver and the engine stack; see docs/harness.md.
 */
import { specialSecretSig, specialSigKey, unknownValue } from "@pulumi/pulumi/runtime";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";

/** A property bag as the plugin sees it (plain JSON-like values). */
export type Props = Record<string, any>;

/** The engine's stand-in for a value not known during preview: providers receive this string whatever the field's type. */
export const UNKNOWN = unknownValue;

/** The property under which the serialized provider travels in inputs and outputs. */
export const PROVIDER_KEY = "__provider";

/**
 * The engine's gRPC message limit, 400 MiB (rpcutil's maxRPCMessageSize in the Go SDK, and
 * `grpcChannelOptions` in the Node SDK's runtime/settings.js, which the plugin's server uses).
 * grpc-js defaults to 4 MiB, too small for a large roster (issue 14); pinned against the SDK by
 * test/harness/largeMessages.test.ts.
 */
export const ENGINE_MAX_MESSAGE_BYTES = 400 * 1024 * 1024;

/** Channel options for every gRPC client or server the harness creates: the engine's message limit both ways. */
export const GRPC_CHANNEL_OPTIONS = {
  "grpc.max_receive_message_length": ENGINE_MAX_MESSAGE_BYTES,
  "grpc.max_send_message_length": ENGINE_MAX_MESSAGE_BYTES,
} as const;

/** A property bag without its `__provider` (undefined stays undefined). */
export function withoutProvider(props: Props | undefined): Props | undefined {
  if (!props) return undefined;
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

/** True for a plain object (not null, not an array). */
export function isObject(v: unknown): v is Props {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * What a Struct can hold: undefined keys dropped, undefined array items turned into null, like
 * the SDK's property serializer (a Struct with undefined fails with "Unexpected struct type").
 */
export function clean(value: any): any {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(clean);
  if (isObject(value)) {
    const out: Props = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = clean(v);
    return out;
  }
  return value;
}

/** A copy with every object's keys in sorted order, so that JSON texts compare by value. */
export function sortKeys(v: any): any {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

/** Deep equality on JSON-like values, undefined and absent alike (what the engine's input diff compares). */
export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(clean(a))) === JSON.stringify(sortKeys(clean(b)));
}

/** A property bag as a protobuf Struct ({} when absent). */
export function toStruct(props: Props | undefined): structproto.Struct {
  return structproto.Struct.fromJavaScript(clean(props ?? {}));
}

/** A protobuf Struct as a property bag ({} when absent). */
export function fromStruct(s: structproto.Struct | undefined): Props {
  return (s?.toJavaScript() as Props) ?? {};
}

/** `value` marked secret, as the engine writes a secret inside a Struct. */
export function secretValue(value: unknown): Props {
  return { [specialSigKey]: specialSecretSig, value };
}
