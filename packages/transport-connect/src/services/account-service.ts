import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { deviceToWire, mfaChallengeToWire } from "@gatehouse/contract";
import type { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
import type { FirstFactorProof, Gatehouse, RecentSignIn } from "@gatehouse/core";
import { clientIpKey } from "../request-context.ts";
import { requestMetaOf } from "../request-meta.ts";
import { factorsToWire, sessionToWire } from "./factors-wire.ts";
import { requirePrincipal } from "./principal.ts";

/** A first factor's proof: the password the request carries, and the client's address for its hash lane. */
const firstFactorProof = (req: { currentPassword: string }, ctx: HandlerContext): FirstFactorProof => ({
  currentPassword: req.currentPassword,
  clientKey: ctx.values.get(clientIpKey),
});

const DEFAULT_RECENT_SIGN_INS = 20;

function recentSignInToWire(signIn: RecentSignIn) {
  return {
    eventId: signIn.eventId,
    at: timestampFromMs(signIn.at),
    orgId: signIn.orgId,
    country: signIn.country ?? "",
    asn: signIn.asn ?? 0,
    browser: signIn.browser ?? "",
    os: signIn.os ?? "",
    deviceType: signIn.deviceType ?? "",
    decision: signIn.decision,
    answer: signIn.answer ?? "",
  };
}

export function createAccountService(gatehouse: Gatehouse): ServiceImpl<typeof AccountService> {
  const { account } = gatehouse;
  return {
    changePassword: async (req, ctx) => {
      await gatehouse.changePassword(requirePrincipal(ctx), {
        currentPassword: req.currentPassword,
        newPassword: req.newPassword,
        clientKey: ctx.values.get(clientIpKey),
        request: requestMetaOf(ctx),
      });
      return {};
    },
    listFactors: async (_req, ctx) => factorsToWire(await account.listFactors(requirePrincipal(ctx))),
    startTotpEnrollment: (req, ctx) => account.startTotpEnrollment(requirePrincipal(ctx), { label: req.label, proof: firstFactorProof(req, ctx) }),
    confirmTotpEnrollment: async (req, ctx) => ({
      factorId: await account.confirmTotpEnrollment(requirePrincipal(ctx), { enrollmentId: req.enrollmentId, code: req.code, request: requestMetaOf(ctx) }),
    }),
    generateRecoveryCodes: async (req, ctx) => ({
      codes: await account.generateRecoveryCodes(requirePrincipal(ctx), { request: requestMetaOf(ctx), proof: firstFactorProof(req, ctx) }),
    }),
    startPasskeyRegistration: (req, ctx) => account.startPasskeyRegistration(requirePrincipal(ctx), { label: req.label, proof: firstFactorProof(req, ctx) }),
    finishPasskeyRegistration: async (req, ctx) => ({
      factorId: await account.finishPasskeyRegistration(requirePrincipal(ctx), {
        registrationId: req.registrationId,
        responseJson: req.webauthnResponseJson,
        request: requestMetaOf(ctx),
      }),
    }),
    removeFactor: async (req, ctx) => {
      await account.removeFactor(requirePrincipal(ctx), { factorId: req.factorId, request: requestMetaOf(ctx) });
      return {};
    },
    listSessions: async (_req, ctx) => ({ sessions: (await account.listSessions(requirePrincipal(ctx))).map(sessionToWire) }),
    revokeSession: async (req, ctx) => {
      await account.revokeSession(requirePrincipal(ctx), { sessionId: req.sessionId, request: requestMetaOf(ctx) });
      return {};
    },
    listDevices: async (_req, ctx) => ({ devices: (await account.listDevices(requirePrincipal(ctx))).map(deviceToWire) }),
    forgetDevice: async (req, ctx) => {
      await account.forgetDevice(requirePrincipal(ctx), { deviceId: req.deviceId, request: requestMetaOf(ctx) });
      return {};
    },
    startStepUp: async (_req, ctx) => ({ mfaRequired: mfaChallengeToWire(await account.startStepUp(requirePrincipal(ctx), requestMetaOf(ctx))) }),
    listRecentSignIns: async (req, ctx) => {
      const signIns = await account.recentSignIns(requirePrincipal(ctx), { limit: req.limit === 0 ? DEFAULT_RECENT_SIGN_INS : req.limit });
      return { signIns: signIns.map(recentSignInToWire) };
    },
    answerSignIn: async (req, ctx) => {
      await account.answerSignIn(requirePrincipal(ctx), { eventId: req.eventId, answer: req.mine ? "mine" : "not_mine", request: requestMetaOf(ctx) });
      return {};
    },
  };
}
