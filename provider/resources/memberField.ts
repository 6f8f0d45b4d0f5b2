/**
 * The shared implementation of OrgMemberPermissions and UserIdentifiers: one field (E22) of one
 * existing member, for repos where membership itself is managed elsewhere (SSO, say). The member
 * is named by `userId` or `email`; create never adds anyone. Delete empties the field.
 */
import { z } from "zod";
import type { Member } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { currentClient } from "../settings";
import {
  ResourceError, SCHEMA_VERSION, checkWith, containsUnknown, definedOnly, describeFailure, diffFields, isStatus, normalizeEmail, stripProvider, type ResourceImpl,
} from "./base";
import { assertAdminRemovalAllowed, memberByEmail, orgMembers, rememberMember } from "./shared";

/** Which E22 field a resource manages, and how to read and normalize it. */
export interface MemberFieldSpec<V> {
  kind: string;
  /** Output and input name. */
  field: string;
  /** E22 body name. */
  bodyField: "organizationPermissions" | "userIdentifiers";
  /** Schema of the input value (normalizing: sorted, unique). */
  schema: z.ZodType<V>;
  /** The live value, normalized the same way. */
  read: (m: Member) => V;
  /** The value written at delete. */
  empty: V;
  /** True when going from `from` to `to` takes ORG_ADMIN away. */
  removesAdmin?: (from: V, to: V) => boolean;
}

/** The state a member-field resource stores. */
export interface MemberFieldState {
  organizationId: number;
  userId: number;
  email: string;
  allowAdminRemoval?: boolean;
  schemaVersion: number;
  [field: string]: unknown;
}

/** Builds the plugin implementation for one member field. */
export function memberFieldImpl<V>(spec: MemberFieldSpec<V>): ResourceImpl {
  const Inputs = z
    .strictObject({
      organizationId: z.number().int().positive({ message: "must be a positive integer organization id" }),
      userId: z.number().int().positive({ message: "must be a positive integer user id" }).optional(),
      email: z.string().trim().toLowerCase().pipe(z.email({ message: "must be an email address" })).optional(),
      [spec.field]: spec.schema,
      allowAdminRemoval: z.boolean().optional(),
    })
    .refine((v) => (v.userId === undefined) !== (v.email === undefined), {
      message: "give exactly one of userId and email to name the member",
      path: ["userId"],
    });
  type Inputs = { organizationId: number; userId?: number; email?: string; allowAdminRemoval?: boolean } & Record<string, any>;

  const label = (s: { organizationId: number; userId?: number; email?: string }) =>
    `${spec.kind} of ${s.email ?? `user ${s.userId}`} in organization ${s.organizationId}`;
  const hint = { forbidden: "the API key needs org admin on this organization" };

  async function findMember(client: ReviewAdminClient, s: { organizationId: number; userId?: number | null; email?: string }) {
    if (s.userId) {
      const byId = (await orgMembers(client, s.organizationId)).get(s.userId);
      if (byId) return byId;
    }
    return s.email ? memberByEmail(client, s.organizationId, s.email) : undefined;
  }

  function stateOf(inputs: Inputs, member: Member): MemberFieldState {
    return definedOnly({
      organizationId: inputs.organizationId,
      userId: member.id,
      email: normalizeEmail(member.email),
      [spec.field]: spec.read(member),
      allowAdminRemoval: inputs.allowAdminRemoval,
      // Which identity the program used, so refresh gives back the same inputs.
      namedBy: inputs.userId !== undefined ? "userId" : "email",
      schemaVersion: SCHEMA_VERSION,
    });
  }

  async function write(client: ReviewAdminClient, inputs: Inputs, member: Member, value: V, action: string): Promise<Member> {
    const live = spec.read(member);
    if (JSON.stringify(live) === JSON.stringify(value)) return member;
    if (spec.removesAdmin?.(live, value) && !inputs.allowAdminRemoval) {
      await assertAdminRemovalAllowed(client, inputs.organizationId, member.id, action);
    }
    const updated = await client.call("PatchOrganizationUser", { orgId: inputs.organizationId, userId: member.id }, {
      [spec.bodyField]: value,
    });
    await rememberMember(client, inputs.organizationId, updated);
    return updated;
  }

  function notMember(s: Inputs): Error {
    return new ResourceError(
      `${label(s)}: ${s.email ?? `user ${s.userId}`} is not a member of organization ${s.organizationId}; ${spec.kind} manages existing members only (use OrgMember to add people)`,
    );
  }

  return {
    async check(_olds, news) {
      return checkWith(Inputs, news);
    },

    async diff(_id, olds: MemberFieldState, news: Inputs) {
      const result = diffFields(olds, news, {
        replaceOn: ["organizationId", ...(news.userId !== undefined ? ["userId"] : ["email"])],
        update: [spec.field, "allowAdminRemoval"],
      });
      // Anti-lockout at preview, only when the change takes ORG_ADMIN away. A value not known
      // yet (a preview unknown) is not judged here: it is the string UNKNOWN, which "lacks"
      // ORG_ADMIN, so it used to be refused although the real value may keep it. `write`
      // checks again at update with the real value.
      if (
        result.changes && !result.replaces?.length && !news.allowAdminRemoval && !containsUnknown(news[spec.field]) &&
        spec.removesAdmin?.(olds[spec.field] as V, news[spec.field])
      ) {
        await assertAdminRemovalAllowed(currentClient(), olds.organizationId, olds.userId, `updating ${label(olds)}`);
      }
      return result;
    },

    async create(raw) {
      const inputs = stripProvider(raw) as Inputs;
      const action = `creating ${label(inputs)}`;
      const client = currentClient();
      try {
        const member = await findMember(client, inputs);
        if (!member) throw notMember(inputs);
        const updated = await write(client, inputs, member, inputs[spec.field], action);
        return { id: `${inputs.organizationId}/${updated.id}`, outs: stateOf(inputs, updated) };
      } catch (err) {
        throw describeFailure(action, err, hint);
      }
    },

    async read(id, props: MemberFieldState) {
      const client = currentClient();
      try {
        const member = await findMember(client, props);
        if (!member) return {};
        const namedBy = props.namedBy === "email" ? { email: props.email } : { userId: props.userId };
        const inputs = definedOnly({ organizationId: props.organizationId, ...namedBy, allowAdminRemoval: props.allowAdminRemoval });
        const state = stateOf(inputs as Inputs, member);
        return { id, props: state, inputs: { ...inputs, [spec.field]: state[spec.field] } };
      } catch (err) {
        if (isStatus(err, 404)) return {};
        throw describeFailure(`reading ${label(props)}`, err, hint);
      }
    },

    async update(_id, olds: MemberFieldState, raw) {
      const inputs = stripProvider(raw) as Inputs;
      const action = `updating ${label(inputs)}`;
      const client = currentClient();
      try {
        const member = await findMember(client, { ...inputs, userId: inputs.userId ?? olds.userId });
        if (!member) throw notMember(inputs);
        return { outs: stateOf(inputs, await write(client, inputs, member, inputs[spec.field], action)) };
      } catch (err) {
        throw describeFailure(action, err, hint);
      }
    },

    async delete(_id, props: MemberFieldState) {
      const action = `deleting ${label(props)}`;
      const client = currentClient();
      try {
        const member = await findMember(client, props);
        if (!member) return; // no longer a member: nothing left to empty
        await write(client, props as Inputs, member, spec.empty, action);
      } catch (err) {
        if (isStatus(err, 404)) return;
        throw describeFailure(action, err, hint);
      }
    },
  };
}
