/**
 * One field (E22) of one existing member, for repos where membership itself is managed elsewhere
 * (SSO, say): the shape shared by OrgMemberPermissions and UserIdentifiers. The member is named by
 * `userId` or `email`; create never adds anyone. Delete empties the field; the membership stays.
 * A per-person grant (personGrant.ts) whose end date empties the field instead of removing anyone.
 */
import { z } from "zod";
import { organizationScope } from "../../../contract/grants";
import type { Member } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { ResourceError } from "../../failures";
import { definedOnly } from "../../util";
import { Email, OrganizationId, UserId } from "./inputs";
import { personKeys } from "./handover";
import { outputsMatch } from "./lifecycle";
import { adminLossGuard } from "./lockout";
import type { MemberFieldInputs, MemberFieldState, MemberRef } from "./memberFieldTypes";
import { normalizeEmail } from "../../normalize";
import { findMember, writeMember, type MemberFields } from "../../access/orgPeople";
import { CalendarDay } from "./expiry";
import { personGrant, type OwnFields } from "./personGrant";

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
  /** Which of the member's fields: its name in the gateway (orgPeople.ts `MemberFields`), in a grant and in a claim (handover.ts). */
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
  const isEmpty = (m: Member) => JSON.stringify(spec.read(m)) === JSON.stringify(spec.empty);

  function stateOf(inputs: MemberRef, member: Member): S {
    return definedOnly({
      expiresOn: inputs.expiresOn,
      organizationId: inputs.organizationId,
      userId: member.id,
      email: normalizeEmail(member.email),
      [spec.field]: spec.read(member),
      allowAdminRemoval: inputs.allowAdminRemoval,
      namedBy: inputs.userId !== undefined ? "userId" : "email",
    }) as S;
  }

  /** The inputs a state stands for: the member named as the program named them. */
  function inputsOf(state: S): I {
    const namedBy = state.namedBy === "email" ? { email: state.email } : { userId: state.userId };
    return definedOnly({
      organizationId: state.organizationId,
      ...namedBy,
      allowAdminRemoval: state.allowAdminRemoval,
      expiresOn: state.expiresOn,
      [spec.field]: state[spec.field],
    }) as I;
  }

  /** Writes the field (E22, only when it differs), guarded when it takes ORG_ADMIN. */
  const write = (client: ReviewAdminClient, inputs: MemberRef, member: Member, value: V, action: string) =>
    writeMember(
      client,
      inputs.organizationId,
      member,
      { [spec.memberField]: value },
      adminLossGuard(client, organizationScope(inputs), action, inputs.allowAdminRemoval),
    );

  /** The member a create or update names (an update: by the user id its state found, else as named); not a member fails. */
  async function member(client: ReviewAdminClient, inputs: I, olds?: S): Promise<Member> {
    const found = await findMember(client, inputs.organizationId, { ...inputs, userId: inputs.userId ?? olds?.userId });
    if (found) return found;
    throw new ResourceError(
      `${label(inputs)}: ${inputs.email ?? `user ${inputs.userId}`} is not a member of organization ${inputs.organizationId}; ${spec.kind} manages existing members only (use OrgMember to add people)`,
    );
  }

  return personGrant<I, S, Member>({
    kind: spec.kind,
    inputs: Inputs,
    outputs: outputsMatch<OwnFields<S>>()(["organizationId", "userId", "email", spec.field as keyof OwnFields<S> & string, "namedBy"]),
    label,
    idOf: (s) => `${s.organizationId}/${s.userId}`,
    claims: (i) => personKeys(spec.memberField, i.organizationId, i),
    holds: (s) => personKeys(spec.memberField, s.organizationId, s),

    scope: organizationScope,
    diffRule: (_olds, news) => ({
      replaceOn: ["organizationId", news.userId !== undefined ? "userId" : "email"],
      // The member is named by one of the two: the other is not an input of this resource.
      ignore: ["userId", "email"],
    }),
    person: (s) => ({ email: s.email, userId: s.userId }),
    grant: (i) => ({
      scope: organizationScope(i),
      subject: definedOnly({ email: i.email, userId: i.userId }),
      [spec.memberField]: i[spec.field],
      window: { expiresOn: i.expiresOn },
    }),
    heldGrant: (s) => ({ scope: organizationScope(s), subject: { email: s.email, userId: s.userId }, [spec.memberField]: s[spec.field] }),
    find: (client, x) => findMember(client, x.organizationId, x),
    holding: (m) => !isEmpty(m),
    // personGrant hands a field kind its member (`field`) in stateOf, create, update and expire.
    stateOf: (inputs, m) => stateOf(inputs, m!),
    inputsOf,
    field: { person: member },
    // Past the end a create writes nothing and says nothing: the member's field stays as found.
    words: {},

    create: async (inputs, { client, action }, m) => stateOf(inputs, await write(client, inputs, m!, inputs[spec.field], action)),
    update: async (_olds, news, { client, action }, m) => stateOf(news, await write(client, news, m!, news[spec.field], action)),
    expire: (_olds, news, { client, action }, m) => write(client, news, m!, spec.empty, action),

    async remove(state, { client, action }) {
      const found = await findMember(client, state.organizationId, state);
      // No longer a member: nothing left to empty.
      if (found) await write(client, state, found, spec.empty, action);
    },
  });
}
