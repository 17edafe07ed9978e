import { beforeEach, afterEach, describe, expect, it } from "vitest";
import { createGatehouse, type Gatehouse } from "../../gatehouse.ts";
import type { GatehouseConfig } from "../../config.ts";
import { isGatehouseError } from "../../errors.ts";
import { ManualClock } from "../manual-clock.ts";
import { OutboxSmsSender } from "../outbox-sms-sender.ts";
import { OutboxEmailSender } from "../outbox-email-sender.ts";
import { SequenceRandom } from "../sequence-random.ts";
import type { StoreContractHandle } from "./store-contract/index.ts";

const PASSWORD = "correct horse battery";
const PHONE = "+15551234567";

function outcomeKinds(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const kind = result.status === "fulfilled" ? "ok" : isGatehouseError(result.reason) ? result.reason.kind : String(result.reason);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/**
 * The single-use and counting guarantees of the spec, end to end through the use cases, on an
 * adapter's real stores: concurrent calls race inside the store, not in the test.
 */
export function describeUseCaseConcurrency(name: string, open: () => Promise<StoreContractHandle>): void {
  describe(`${name}: use cases under concurrency`, () => {
    let handle: StoreContractHandle;
    let gatehouse: Gatehouse;
    let sms: OutboxSmsSender;
    let orgId: string;
    /** The same stores and ports with other configuration, for cases that need it. */
    let configured: (config: Partial<GatehouseConfig>) => Gatehouse;

    beforeEach(async () => {
      handle = await open();
      sms = new OutboxSmsSender();
      const ports = { stores: handle.stores, clock: new ManualClock(), random: new SequenceRandom(), sms, email: new OutboxEmailSender() };
      configured = (config) => createGatehouse({ ...ports, config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 }, ...config } });
      gatehouse = configured({});
      ({ orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme" }));
      await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
      await gatehouse.admin.addMember({ kind: "system" }, { orgId, email: "ada@example.com", role: "member" });
    });

    afterEach(async () => {
      await handle.close();
    });

    const login = (fingerprint: string) => gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: fingerprint });

    async function intent(): Promise<string> {
      const outcome = await login("laptop");
      if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
      return outcome.intent.intentId;
    }

    async function challenge(): Promise<{ challengeId: string; otp: string }> {
      const { challengeId } = await gatehouse.submitPhoneAndRequestMfa({ intentId: await intent(), phone: PHONE });
      return { challengeId, otp: sms.lastOtpFor(challengeId)! };
    }

    it("50 concurrent VerifyMFA with the right OTP: exactly one session", async () => {
      const { challengeId, otp } = await challenge();
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => gatehouse.verifyMfa({ challengeId, otp })));
      expect(outcomeKinds(results)).toEqual({ ok: 1, invalid_mfa_challenge: 49 });
    });

    it("50 concurrent SubmitPhoneAndRequestMFA on one intent: exactly one challenge", async () => {
      const intentId = await intent();
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => gatehouse.submitPhoneAndRequestMfa({ intentId, phone: PHONE })));
      expect(outcomeKinds(results)).toEqual({ ok: 1, invalid_mfa_intent: 49 });
      expect(sms.sent).toHaveLength(1);
    });

    it("50 concurrent Refresh with one token within the reuse interval: all get the same new pair and the session stays active", async () => {
      const { challengeId, otp } = await challenge();
      const tokens = await gatehouse.verifyMfa({ challengeId, otp });
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => gatehouse.refresh({ refreshToken: tokens.refreshToken })));
      const pairs = results.map((r) =>
        r.status === "fulfilled" && r.value.kind === "tokens" ? `${r.value.tokens.accessToken} ${r.value.tokens.refreshToken}` : "failed",
      );
      expect(new Set(pairs).size).toBe(1);
      expect(pairs[0]).not.toBe("failed");
      const [accessToken, refreshToken] = pairs[0]!.split(" ");
      await expect(gatehouse.authenticate(accessToken!)).resolves.toMatchObject({ orgId });
      expect((await gatehouse.refresh({ refreshToken: refreshToken! })).kind).toBe("tokens");
    });

    it("20 concurrent Refresh with one token and the reuse interval off: exactly one new pair, then the session is revoked as reuse", async () => {
      const strict = configured({ refreshReuseIntervalMs: 0 });
      const { challengeId, otp } = await challenge();
      const tokens = await gatehouse.verifyMfa({ challengeId, otp });
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => strict.refresh({ refreshToken: tokens.refreshToken })));
      const winners = results.flatMap((r) => (r.status === "fulfilled" && r.value.kind === "tokens" ? [r.value.tokens] : []));
      expect(winners).toHaveLength(1);
      await expect(strict.authenticate(winners[0]!.accessToken)).rejects.toMatchObject({ kind: "unauthenticated" });
    });

    it("50 concurrent wrong OTPs: never more guesses than the per-challenge cap", async () => {
      const { challengeId, otp } = await challenge();
      const wrong = otp === "000000" ? "000001" : "000000";
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => gatehouse.verifyMfa({ challengeId, otp: wrong })));
      expect(outcomeKinds(results)).toEqual({ invalid_otp: 5, invalid_mfa_challenge: 45 });
    });

    it("50 concurrent logins needing an SMS: the per-phone send limit (5 per 15 min) is exact", async () => {
      const { challengeId, otp } = await challenge();
      await gatehouse.verifyMfa({ challengeId, otp });
      const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => login(`device-${i}`)));
      expect(outcomeKinds(results)).toEqual({ ok: 4, rate_limited: 46 });
      expect(sms.sent).toHaveLength(5);
    });
  });
}
