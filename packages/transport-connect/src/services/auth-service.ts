import type { ServiceImpl } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { authOutcomeToWire, mfaChallengeToWire, mfaFactorFromWire, tokensToWire } from "@gatehouse/contract";
import type { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { invalidArgument, type Gatehouse } from "@gatehouse/core";
import { clientIpKey } from "../request-context.ts";
import { requestMetaOf } from "../request-meta.ts";
import { requirePrincipal } from "./principal.ts";

export function createAuthService(gatehouse: Gatehouse): ServiceImpl<typeof AuthService> {
  return {
    register: (req, ctx) =>
      gatehouse.register({
        email: req.email,
        password: req.password,
        displayName: req.displayName ?? "",
        clientKey: ctx.values.get(clientIpKey),
        request: requestMetaOf(ctx),
      }),
    verifyEmail: async (req, ctx) => {
      await gatehouse.verifyEmail({
        token: req.token,
        registrantProof: req.registrantProof,
        newPassword: req.newPassword,
        clientKey: ctx.values.get(clientIpKey),
        request: requestMetaOf(ctx),
      });
      return {};
    },
    acceptInvitation: (req, ctx) =>
      gatehouse.acceptInvitation({ token: req.token, password: req.password, clientKey: ctx.values.get(clientIpKey), request: requestMetaOf(ctx) }),
    requestPasswordReset: async (req, ctx) => {
      await gatehouse.requestPasswordReset({ email: req.email, request: requestMetaOf(ctx) });
      return {};
    },
    resetPassword: async (req, ctx) => {
      await gatehouse.resetPassword({ token: req.token, newPassword: req.newPassword, clientKey: ctx.values.get(clientIpKey), request: requestMetaOf(ctx) });
      return {};
    },
    disownSignIn: async (req, ctx) => {
      await gatehouse.disownSignIn({ token: req.token, eventId: req.eventId, request: requestMetaOf(ctx) });
      return {};
    },
    login: async (req, ctx) =>
      authOutcomeToWire(
        await gatehouse.login({
          email: req.email,
          password: req.password,
          orgId: req.orgId,
          deviceFingerprint: req.deviceFingerprint,
          unblockToken: req.unblockToken,
          ...(req.rttMs === 0 ? {} : { rttMs: req.rttMs }),
          clientKey: ctx.values.get(clientIpKey),
          request: requestMetaOf(ctx),
        }),
      ),
    refresh: async (req, ctx) =>
      authOutcomeToWire(await gatehouse.refresh({ refreshToken: req.refreshToken, deviceFingerprint: req.deviceFingerprint, request: requestMetaOf(ctx) })),
    logout: async (_req, ctx) => {
      await gatehouse.logout(requirePrincipal(ctx), requestMetaOf(ctx));
      return {};
    },
    submitPhoneAndRequestMFA: async (req, ctx) =>
      mfaChallengeToWire(await gatehouse.submitPhoneAndRequestMfa({ intentId: req.intentId, phone: req.phone, request: requestMetaOf(ctx) })),
    verifyMFA: async (req, ctx) =>
      tokensToWire(
        await gatehouse.verifyMfa({
          challengeId: req.challengeId,
          otp: req.otp,
          factor: mfaFactorFromWire(req.factor, invalidArgument),
          webauthnResponseJson: req.webauthnResponseJson,
          request: requestMetaOf(ctx),
        }),
      ),
    resendMFA: async (req, ctx) => mfaChallengeToWire(await gatehouse.resendMfa({ challengeId: req.challengeId, request: requestMetaOf(ctx) })),
    sendMfaCode: async (req, ctx) => {
      const { phoneMask, resendAfterSeconds } = await gatehouse.sendMfaCode({ challengeId: req.challengeId, request: requestMetaOf(ctx) });
      return { phoneMask, resendAfterSeconds };
    },
    startPasskeySignIn: (req, ctx) => gatehouse.startPasskeySignIn({ orgId: req.orgId, request: requestMetaOf(ctx) }),
    finishPasskeySignIn: async (req, ctx) => ({
      tokens: tokensToWire(
        await gatehouse.finishPasskeySignIn({
          challengeId: req.challengeId,
          webauthnResponseJson: req.webauthnResponseJson,
          deviceFingerprint: req.deviceFingerprint,
          request: requestMetaOf(ctx),
        }),
      ),
    }),
    issueAccessJwt: async (req, ctx) => {
      const { accessJwt, expiresAt } = await gatehouse.tokens.issueAccessJwt(requirePrincipal(ctx), req.audience);
      return { accessJwt, expiresAt: timestampFromMs(expiresAt) };
    },
  };
}
