import type { ServiceImpl } from "@connectrpc/connect";
import { authOutcomeToWire, mfaChallengeToWire, tokensToWire } from "@gatehouse/contract";
import type { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import type { Gatehouse } from "@gatehouse/core";
import { clientIpKey } from "../request-context.ts";
import { requirePrincipal } from "./principal.ts";

export function createAuthService(gatehouse: Gatehouse): ServiceImpl<typeof AuthService> {
  return {
    register: (req, ctx) =>
      gatehouse.register({ email: req.email, password: req.password, displayName: req.displayName ?? "", clientKey: ctx.values.get(clientIpKey) }),
    login: async (req, ctx) =>
      authOutcomeToWire(
        await gatehouse.login({
          email: req.email,
          password: req.password,
          orgId: req.orgId,
          deviceFingerprint: req.deviceFingerprint,
          clientKey: ctx.values.get(clientIpKey),
        }),
      ),
    refresh: async (req) => authOutcomeToWire(await gatehouse.refresh({ refreshToken: req.refreshToken, deviceFingerprint: req.deviceFingerprint })),
    logout: async (_req, ctx) => {
      await gatehouse.logout(requirePrincipal(ctx));
      return {};
    },
    submitPhoneAndRequestMFA: async (req) => mfaChallengeToWire(await gatehouse.submitPhoneAndRequestMfa({ intentId: req.intentId, phone: req.phone })),
    verifyMFA: async (req) => tokensToWire(await gatehouse.verifyMfa({ challengeId: req.challengeId, otp: req.otp })),
    resendMFA: async (req) => mfaChallengeToWire(await gatehouse.resendMfa({ challengeId: req.challengeId })),
  };
}
