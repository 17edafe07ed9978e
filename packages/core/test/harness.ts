import { createGatehouse, deviceFingerprintHash, type GatehouseConfig } from "../src/index.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";

/** Cheap Argon2id parameters: the tests exercise the flow, not the KDF's cost. */
export const TEST_PASSWORD_PARAMS = { memoryKiB: 1024, passes: 1, parallelism: 1 };
export const PASSWORD = "correct horse battery";

export async function createHarness(config: Partial<GatehouseConfig> = {}) {
  const stores = createMemoryStores();
  const clock = new ManualClock();
  const random = new SequenceRandom();
  const sms = new OutboxSmsSender();
  const email = new OutboxEmailSender();
  const gatehouse = createGatehouse({ stores, clock, random, sms, email, config: { password: TEST_PASSWORD_PARAMS, ...config } });
  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme" });
  const { userId } = await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
  await gatehouse.admin.addMember({ kind: "system" }, { orgId, email: "ada@example.com", role: "member" });
  email.sent.length = 0;
  const login = (fingerprint = "laptop", email = "ada@example.com", password = PASSWORD) =>
    gatehouse.login({ email, password, orgId, deviceFingerprint: fingerprint });
  /** What the store keeps of a fingerprint (devices/fingerprint-hash.ts). */
  const fingerprintHash = deviceFingerprintHash(config.factorEncryptionKey);
  return { stores, clock, random, sms, email, gatehouse, orgId, userId, login, fingerprintHash };
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;

/** Logs in on `fingerprint` and completes MFA through the phone intent; returns the tokens. */
export async function signInWithPhone(h: Harness, fingerprint = "laptop", phone = "+15551234567") {
  const outcome = await h.login(fingerprint);
  if (outcome.kind === "tokens") return outcome.tokens;
  const challengeId =
    outcome.kind === "phone_required"
      ? (await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone })).challengeId
      : outcome.challenge.challengeId;
  return h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! });
}
