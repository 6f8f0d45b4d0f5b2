/** Control routes for API keys: the named keys and every key, minting one, revoking one. */
import { z } from "zod";
import type { Store } from "../model/store";
import { id, parse, type ControlRoute } from "./types";

const Schemas = {
  mintKey: z.union([
    z.object({ userId: id, label: z.string().optional() }),
    z.object({ organizationId: id, label: z.string().optional() }),
  ]),
};

function keyList(store: Store) {
  return store.apiKeys.all().map(({ key, keyId, kind, userId, organizationId, label }) => ({
    key,
    keyId,
    kind,
    userId,
    organizationId,
    label,
  }));
}

/** List, mint and revoke keys. */
export const keyRoutes: ControlRoute[] = [
  {
    method: "GET",
    path: "/_emulator/keys",
    summary: "Named keys of the seeded world and every key",
    handler: ({ store }) => ({ data: { named: store.namedKeys, keys: keyList(store) } }),
  },
  {
    method: "POST",
    path: "/_emulator/keys",
    summary: "Mint a key: {userId} acts as the user; {organizationId} is an organization key (org admin, parent org admin of its subs)",
    handler: ({ store, body }) => {
      const b = parse(Schemas.mintKey, body);
      const record =
        "userId" in b ? store.apiKeys.mintUserKey(b.userId, b.label) : store.apiKeys.mintOrganizationKey(b.organizationId, b.label);
      return {
        status: 201,
        data: { key: record.key, keyId: record.keyId, kind: record.kind, userId: record.userId, organizationId: record.organizationId },
      };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/keys/{key}",
    summary: "Revoke a key (full text or middle segment)",
    handler: ({ store, params }) => {
      store.apiKeys.revoke(String(params.key));
      return { status: 204 };
    },
  },
];
