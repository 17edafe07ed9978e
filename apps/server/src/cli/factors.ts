/** `gatehouse factors …`: a user's second factors, and the way back for one who lost them all. */
import { USER_PARAM, UsageError, type Command } from "./command.ts";
import { userIdOf } from "./references.ts";

/** Second factors' commands. */
export const FACTORS_COMMANDS: Readonly<Record<string, Command>> = {
  "factors list": {
    summary: "the user's second factors (never a secret): passkeys, authenticator apps, recovery codes left, the masked phone",
    params: { user: USER_PARAM },
    options: {},
    output: '{"factors": [{id, kind, label, created_at, last_used_at}], "recovery_codes_left", "phone_mask"}',
    run: async ({ actor, args, gatehouse }) => {
      const view = await gatehouse.admin.listFactorsOfUser(actor, { userId: await userIdOf(gatehouse, actor, args[0]!) });
      return {
        factors: view.factors.map((factor) => ({
          id: factor.id,
          kind: factor.kind,
          label: factor.label,
          created_at: new Date(factor.createdAt).toISOString(),
          last_used_at: factor.lastUsedAt === null ? null : new Date(factor.lastUsedAt).toISOString(),
        })),
        recovery_codes_left: view.recoveryCodesLeft,
        phone_mask: view.phoneMask,
      };
    },
  },
  "factors reset": {
    summary:
      "for a user who lost every factor: removes passkeys, authenticator apps and recovery codes, unlocks the phone, ends every session and device trust (audited)",
    params: { user: USER_PARAM },
    options: { reason: ["<text>", "required: why, recorded in the audit trail"] },
    output: '{"reset": true}',
    run: async ({ actor, args, values, gatehouse }) => {
      if (values.reason === undefined) throw new UsageError("factors reset needs --reason <text> (it is recorded in the audit trail)");
      await gatehouse.admin.resetUserFactors(actor, { orgId: null, userId: await userIdOf(gatehouse, actor, args[0]!), reason: values.reason });
      return { reset: true };
    },
  },
};
