import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { AuthOutcome, Gatehouse, IssuedTokens } from "@gatehouse/core";
import type { AuthService } from "../gen/gatehouse/v1/auth_pb.ts";
import { clientIpKey } from "../request-context.ts";
import { requirePrincipal } from "./principal.ts";

interface AuthResponseInit {
  accessToken: string;
  refreshToken: string;
  expiresAt: Timestamp;
  userId: string;
  orgId: string;
}

/** The init shape shared by LoginResponse and RefreshResponse (same oneof, names and numbers). */
interface OutcomeInit {
  result:
    | { case: "tokens"; value: AuthResponseInit }
    | { case: "mfaRequired"; value: { challengeId: string; phoneMask: string; resendAfterSeconds: number } }
    | { case: "phoneRequired"; value: { intentId: string } };
}

export function toAuthResponse(tokens: IssuedTokens): AuthResponseInit {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: timestampFromMs(tokens.expiresAt),
    userId: tokens.userId,
    orgId: tokens.orgId,
  };
}

function toOutcomeResponse(outcome: AuthOutcome): OutcomeInit {
  const result: OutcomeInit["result"] =
    outcome.kind === "tokens"
      ? { case: "tokens", value: toAuthResponse(outcome.tokens) }
      : outcome.kind === "mfa_required"
        ? { case: "mfaRequired", value: { ...outcome.challenge } }
        : { case: "phoneRequired", value: { ...outcome.intent } };
  return { result };
}

export function createAuthService(gatehouse: Gatehouse): ServiceImpl<typeof AuthService> {
  return {
    register: (req, ctx) =>
      gatehouse.register({ email: req.email, password: req.password, displayName: req.displayName ?? "", clientKey: ctx.values.get(clientIpKey) }),
    login: async (req, ctx) =>
      toOutcomeResponse(
        await gatehouse.login({
          email: req.email,
          password: req.password,
          orgId: req.orgId,
          deviceFingerprint: req.deviceFingerprint,
          clientKey: ctx.values.get(clientIpKey),
        }),
      ),
    refresh: async (req) => toOutcomeResponse(await gatehouse.refresh({ refreshToken: req.refreshToken, deviceFingerprint: req.deviceFingerprint })),
    logout: async (_req, ctx) => {
      await gatehouse.logout(requirePrincipal(ctx));
      return {};
    },
    submitPhoneAndRequestMFA: (req) => gatehouse.submitPhoneAndRequestMfa({ intentId: req.intentId, phone: req.phone }),
    verifyMFA: async (req) => toAuthResponse(await gatehouse.verifyMfa({ challengeId: req.challengeId, otp: req.otp })),
    resendMFA: (req) => gatehouse.resendMfa({ challengeId: req.challengeId }),
  };
}
