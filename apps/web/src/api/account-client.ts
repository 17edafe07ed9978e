import type { Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { deviceFromWire, mfaChallengeFromWire, type DeviceView, type MfaChallengeView } from "@gatehouse/contract";
import { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";

/** A factor the user can remove (a passkey or an authenticator app); times are epoch milliseconds. */
export interface FactorView {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly createdAt: number | null;
  readonly lastUsedAt: number | null;
}

/** What ListFactors answers: the apps, how many recovery codes are left, the phone (masked; "" when none). */
export interface FactorsView {
  readonly factors: readonly FactorView[];
  readonly recoveryCodesLeft: number;
  readonly phoneMask: string;
}

/** A pending authenticator app: the secret to show once, and the URI its QR code carries. */
export interface TotpEnrollmentView {
  readonly enrollmentId: string;
  readonly secret: string;
  readonly otpauthUri: string;
}

export interface AccountSessionView {
  readonly id: string;
  readonly createdAt: number | null;
  readonly lastSeenAt: number | null;
  readonly deviceLabel: string;
  readonly amr: readonly string[];
  /** The session this page runs in. */
  readonly current: boolean;
}

/** A sign-in the risk engine judged, as ListRecentSignIns answers it (empty strings: unknown). */
export interface RecentSignInView {
  readonly eventId: string;
  readonly at: number | null;
  readonly country: string;
  readonly browser: string;
  readonly os: string;
  readonly deviceType: string;
  readonly decision: string;
  /** "true_positive" (not me), "false_positive" (me), or "" while not answered. */
  readonly answer: string;
}

/** RemoveFactor's id for the whole set of recovery codes. */
export const RECOVERY_CODES_FACTOR_ID = "recovery_codes";

/** AccountService for the signed-in user, over the app's transport (its interceptor sends and renews the token). */
export interface AccountClient {
  /** Ends the user's other sessions and every other device's trust (the server's rule). */
  changePassword(currentPassword: string, newPassword: string): Promise<void>;
  listFactors(): Promise<FactorsView>;
  /** `currentPassword`: for the user's very first factor, which needs it instead of a step-up; ignored otherwise. */
  startTotpEnrollment(label: string, currentPassword?: string): Promise<TotpEnrollmentView>;
  /** The new factor's id. */
  confirmTotpEnrollment(enrollmentId: string, code: string): Promise<string>;
  /** Creation options for a new passkey, and the registration they belong to. */
  startPasskeyRegistration(label: string, currentPassword?: string): Promise<{ readonly registrationId: string; readonly webauthnOptionsJson: string }>;
  /** The new passkey's factor id. */
  finishPasskeyRegistration(registrationId: string, webauthnResponseJson: string): Promise<string>;
  /** Ten new codes, replacing any earlier set; the server keeps only their hashes. */
  generateRecoveryCodes(currentPassword?: string): Promise<readonly string[]>;
  removeFactor(factorId: string): Promise<void>;
  listSessions(): Promise<readonly AccountSessionView[]>;
  revokeSession(sessionId: string): Promise<void>;
  listDevices(): Promise<readonly DeviceView[]>;
  forgetDevice(deviceId: string): Promise<void>;
  /** A challenge bound to this session; VerifyMFA on it answers new tokens for the same session. */
  startStepUp(): Promise<MfaChallengeView>;
  listRecentSignIns(): Promise<readonly RecentSignInView[]>;
  /** `mine` false ("This wasn't me") ends every session of the account, this one included. */
  answerSignIn(eventId: string, mine: boolean): Promise<void>;
}

const msOrNull = (timestamp: Timestamp | undefined): number | null => (timestamp === undefined ? null : timestampMs(timestamp));

export function createAccountClient(transport: Transport): AccountClient {
  const client = createClient(AccountService, transport);
  return {
    async changePassword(currentPassword, newPassword) {
      await client.changePassword({ currentPassword, newPassword });
    },
    async listFactors() {
      const { factors, recoveryCodesLeft, phoneMask } = await client.listFactors({});
      return {
        factors: factors.map(({ id, kind, label, createdAt, lastUsedAt }) => ({
          id,
          kind,
          label,
          createdAt: msOrNull(createdAt),
          lastUsedAt: msOrNull(lastUsedAt),
        })),
        recoveryCodesLeft,
        phoneMask,
      };
    },
    async startTotpEnrollment(label, currentPassword = "") {
      const { enrollmentId, secret, otpauthUri } = await client.startTotpEnrollment({ label, currentPassword });
      return { enrollmentId, secret, otpauthUri };
    },
    async confirmTotpEnrollment(enrollmentId, code) {
      return (await client.confirmTotpEnrollment({ enrollmentId, code })).factorId;
    },
    async startPasskeyRegistration(label, currentPassword = "") {
      const { registrationId, webauthnOptionsJson } = await client.startPasskeyRegistration({ label, currentPassword });
      return { registrationId, webauthnOptionsJson };
    },
    async finishPasskeyRegistration(registrationId, webauthnResponseJson) {
      return (await client.finishPasskeyRegistration({ registrationId, webauthnResponseJson })).factorId;
    },
    async generateRecoveryCodes(currentPassword = "") {
      return (await client.generateRecoveryCodes({ currentPassword })).codes;
    },
    async removeFactor(factorId) {
      await client.removeFactor({ factorId });
    },
    async listSessions() {
      const { sessions } = await client.listSessions({});
      return sessions.map(({ id, createdAt, lastSeenAt, deviceLabel, amr, current }) => ({
        id,
        createdAt: msOrNull(createdAt),
        lastSeenAt: msOrNull(lastSeenAt),
        deviceLabel,
        amr: [...amr],
        current,
      }));
    },
    async revokeSession(sessionId) {
      await client.revokeSession({ sessionId });
    },
    async listDevices() {
      return (await client.listDevices({})).devices.map(deviceFromWire);
    },
    async forgetDevice(deviceId) {
      await client.forgetDevice({ deviceId });
    },
    async listRecentSignIns() {
      const { signIns } = await client.listRecentSignIns({});
      return signIns.map(({ eventId, at, country, browser, os, deviceType, decision, answer }) => ({
        eventId,
        at: msOrNull(at),
        country,
        browser,
        os,
        deviceType,
        decision,
        answer,
      }));
    },
    async answerSignIn(eventId, mine) {
      await client.answerSignIn({ eventId, mine });
    },
    async startStepUp() {
      const { mfaRequired } = await client.startStepUp({});
      if (mfaRequired === undefined) throw new Error("StartStepUp answered without a challenge.");
      return mfaChallengeFromWire(mfaRequired);
    },
  };
}
