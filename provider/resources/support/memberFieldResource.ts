/**
 * One field (E22) of one existing member, for repos where membership itself is managed elsewhere
 * (SSO, say): the shape shared by OrgMemberPermissions and UserIdentifiers. The member is named by
 * `userId` or `email`; create never adds anyone. Delete empties the field; the membership stays.
 */
import { z } from "zod";
import type { Scope } from "../../../contract/grants";
import type { Member } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { ResourceError } from "../../failures";
import { definedOnly } from "../../util";
import { Email, OrganizationId, UserId } from "./inputs";
import { personKeys } from "./handover";
import { containsUnknown, defineResource, diffFields, outputsMatch } from "./lifecycle";
import { adminLossGuard, assertAdminRemovalAllowed } from "./lockout";
import type { MemberFieldInputs, MemberFieldState, MemberRef } from "./memberFieldTypes";
import { normalizeEmail } from "../../normalize";
import { findMember, writeMember, type MemberFields } from "../../access/orgPeople";
import { CalendarDay, expiryStep, standingOf, type Standing } from "./expiry";

const scopeOf = (s: { organizationId: number }): Scope => ({ kind: "organization", id: s.organizationId });

/** Which E22 field a resource manages, and how to read it. */
export interface MemberFieldSpec<F extends string, V> {
  kind: string;
  /** Input and output name of the value. */
  field: F;
  /** Schema of the input value (normalizing: sorted, unique). */
  schema: z.ZodType<V>;
  /** The live value, normalized the same way. */
  read: (m: Member) => V;
  /** The value written at delete. */
  empty: V;
  /** True when going from `from` to `to` takes ORG_ADMIN away. */
  removesAdmin?: (from: V, to: V) => boolean;
  /** Which of the member's fields: its name in the gateway (orgPeople.ts `MemberFields`) and in a claim (handover.ts). */
  memberField: keyof MemberFields;
  /** The field is a grant that takes `expiresOn`: from that day on up empties it. */
  expires?: boolean;
}

/** Builds the implementation of one member field (see the file comment). */
export function memberFieldResource<F extends string, V>(spec: MemberFieldSpec<F, V>) {
  type I = MemberFieldInputs<F, V>;
  type S = MemberFieldState<F, V>;
  const Inputs = z
    .strictObject({
      organizationId: OrganizationId,
      userId: UserId.optional(),
      email: Email.optional(),
      [spec.field]: spec.schema,
      allowAdminRemoval: z.boolean().optional(),
      ...(spec.expires ? { expiresOn: CalendarDay.optional() } : {}),
    })
    .refine((v) => (v.userId === undefined) !== (v.email === undefined), {
      message: "give exactly one of userId and email to name the member",
      path: ["userId"],
    }) as unknown as z.ZodType<I>;

  const label = (s: MemberRef) => `${spec.kind} of ${s.email ?? `user ${s.userId}`} in organization ${s.organizationId}`;

  function stateOf(inputs: MemberRef, member: Member, st: Standing = "active", expiredOn?: string): S {
    return definedOnly({
      expiresOn: inputs.expiresOn,
      expiringSoon: st === "soon" ? inputs.expiresOn : undefined,
      expiredOn,
      organizationId: inputs.organizationId,
      userId: member.id,
      email: normalizeEmail(member.email),
      [spec.field]: spec.read(member),
      allowAdminRemoval: inputs.allowAdminRemoval,
      namedBy: inputs.userId !== undefined ? "userId" : "email",
    }) as S;
  }

  /** Writes the field (E22, only when it differs), guarded when it takes ORG_ADMIN. */
  const write = (client: ReviewAdminClient, inputs: MemberRef, member: Member, value: V, action: string) =>
    writeMember(
      client,
      inputs.organizationId,
      member,
      { [spec.memberField]: value },
      adminLossGuard(client, scopeOf(inputs), action, inputs.allowAdminRemoval),
    );

  function notMember(s: MemberRef): Error {
    return new ResourceError(
      `${label(s)}: ${s.email ?? `user ${s.userId}`} is not a member of organization ${s.organizationId}; ${spec.kind} manages existing members only (use OrgMember to add people)`,
    );
  }

  return defineResource<I, S>({
    kind: spec.kind,
    inputs: Inputs,
    outputs: outputsMatch<S>()([
      "organizationId",
      "userId",
      "email",
      spec.field,
      "allowAdminRemoval",
      "namedBy",
      "expiresOn",
      "expiringSoon",
      "expiredOn",
    ]),
    label,
    subject: (s) => ({ scope: scopeOf(s), subject: { email: s.email, userId: s.userId } }),
    idOf: (s) => `${s.organizationId}/${s.userId}`,
    claims: (i) => personKeys(spec.memberField, i.organizationId, i),
    holds: (s) => personKeys(spec.memberField, s.organizationId, s),

    async diff(olds, news, { client, action, refresh }) {
      const result = diffFields(olds, news, {
        replaceOn: ["organizationId", news.userId !== undefined ? "userId" : "email"],
        // The member is named by one of the two: the other is not an input of this resource.
        ignore: ["userId", "email"],
      });
      const step =
        result.replaces?.length || containsUnknown(news.expiresOn)
          ? undefined
          : await expiryStep(client, action, olds.email, news.expiresOn, olds.expiredOn, refresh);
      // Removed once; a later up with the date still past has nothing to do.
      if (step === "done") return { changes: false };
      if (step === "remove" && !news.allowAdminRemoval && spec.removesAdmin?.(olds[spec.field], spec.empty))
        await assertAdminRemovalAllowed(client, scopeOf(olds), olds.userId, action);
      // Past the end: emptied. The end moved later (or went) after up emptied it: written again.
      if (step === "remove" || step === "restore") return { changes: true, replaces: [] };
      // Anti-lockout at preview, only when the change takes ORG_ADMIN away. A value not known yet
      // is judged at up, with the real value (write checks again).
      if (
        result.changes &&
        !result.replaces?.length &&
        !news.allowAdminRemoval &&
        !containsUnknown(news[spec.field]) &&
        spec.removesAdmin?.(olds[spec.field], news[spec.field])
      ) {
        await assertAdminRemovalAllowed(client, scopeOf(olds), olds.userId, action);
      }
      return result;
    },

    async create(inputs, { client, action }) {
      const member = await findMember(client, inputs.organizationId, inputs);
      if (!member) throw notMember(inputs);
      const st = await standingOf(client, inputs.expiresOn);
      // Already past its end: the grant counts as not declared, and nothing is written.
      if (st === "expired") return stateOf(inputs, member, st, inputs.expiresOn);
      return stateOf(inputs, await write(client, inputs, member, inputs[spec.field], action), st);
    },

    async read(state, { client }) {
      const member = await findMember(client, state.organizationId, state);
      if (!member) return undefined;
      const namedBy = state.namedBy === "email" ? { email: state.email } : { userId: state.userId };
      const kept = definedOnly({
        organizationId: state.organizationId,
        ...namedBy,
        allowAdminRemoval: state.allowAdminRemoval,
        expiresOn: state.expiresOn,
      });
      // Emptied at its end date and still empty: kept so. Given back by hand: the next up empties it again.
      const stillEmpty = JSON.stringify(spec.read(member)) === JSON.stringify(spec.empty);
      const fresh = stateOf(kept, member, await standingOf(client, state.expiresOn), stillEmpty ? state.expiredOn : undefined);
      return { state: fresh, inputs: { ...kept, [spec.field]: fresh[spec.field] } as I };
    },

    async update(olds, news, { client, action }) {
      const member = await findMember(client, news.organizationId, { ...news, userId: news.userId ?? olds.userId });
      if (!member) throw notMember(news);
      const st = await standingOf(client, news.expiresOn);
      if (st === "expired") return stateOf(news, await write(client, news, member, spec.empty, action), st, news.expiresOn);
      return stateOf(news, await write(client, news, member, news[spec.field], action), st);
    },

    async delete(state, { client, action }) {
      if (state.expiredOn) return; // emptied when it expired
      const member = await findMember(client, state.organizationId, state);
      if (!member) return; // no longer a member: nothing left to empty
      await write(client, state, member, spec.empty, action);
    },
  });
}
