import { describe, expect, it } from "vitest";
import type { RateLimitName } from "../src/records/audit-events.ts";
import { DEFAULT_CONFIG } from "../src/config.ts";
import type { RateLimitDecision, RateLimiter, RateLimitReceipt, RateLimitRequest } from "../src/ports.ts";
import { consumeAll } from "../src/rate-limits/rate-limits.ts";

const NOW = Date.UTC(2026, 5, 1);
const SECOND = 1000;

const PHONE_15M = "otp-send:phone:+15550100:900000";
const PHONE_DAY = "otp-send:phone:+15550100:86400000";
const USER_DAY = "otp-send:user:user-1:86400000";

const LIMITS = [
  { name: "otp_sends_per_phone", key: "otp-send:phone:+15550100", windows: DEFAULT_CONFIG.otpSendsPerPhone },
  { name: "otp_sends_per_user", key: "otp-send:user:user-1", windows: DEFAULT_CONFIG.otpSendsPerUser },
] as const;

/** A limiter that refuses the keys of `refusals` until the time given, takes a unit of every other key, and logs its calls. */
function scriptedLimiter(refusals: Readonly<Record<string, number>>) {
  const calls: string[] = [];
  const receipt = (key: string): RateLimitReceipt => ({ key, at: NOW, unit: 1 });
  const decide = ({ key, limit }: RateLimitRequest): RateLimitDecision => {
    const retryAt = refusals[key];
    return retryAt === undefined ? { allowed: true, count: 1, receipt: receipt(key) } : { allowed: false, count: limit, retryAt };
  };
  const limiter: RateLimiter = {
    async consume(key, limit, windowMs) {
      calls.push(`consume ${key}`);
      return decide({ key, limit, windowMs });
    },
    async consumeMany(requests) {
      calls.push(`consumeMany ${requests.map((request) => `${request.key}/${request.limit}`).join(" ")}`);
      return requests.map(decide);
    },
    async refund(taken) {
      calls.push(`refund ${taken.key}`);
    },
  };
  return { limiter, calls, receipt };
}

const ALL_WINDOWS = `consumeMany ${PHONE_15M}/5 ${PHONE_DAY}/20 ${USER_DAY}/20`;

describe("consumeAll", () => {
  it("asks for every window of every key in one consumeMany call and keeps the receipts when all have room", async () => {
    const { limiter, calls, receipt } = scriptedLimiter({});
    expect(await consumeAll(limiter, LIMITS, NOW)).toEqual({ allowed: true, receipts: [receipt(PHONE_15M), receipt(PHONE_DAY), receipt(USER_DAY)] });
    expect(calls).toEqual([ALL_WINDOWS]);
  });

  it.each<[string, Record<string, number>, RateLimitName, number, string[]]>([
    ["the phone's 15-minute window", { [PHONE_15M]: NOW + 60 * SECOND }, "otp_sends_per_phone", 60, [PHONE_DAY, USER_DAY]],
    // Given back in key order (the order consumeMany locks keys in): the day's key sorts first.
    ["the user's day window", { [USER_DAY]: NOW + 3600 * SECOND }, "otp_sends_per_user", 3600, [PHONE_DAY, PHONE_15M]],
    ["both phone windows: the day lifts last", { [PHONE_15M]: NOW + 60 * SECOND, [PHONE_DAY]: NOW + 7200 * SECOND }, "otp_sends_per_phone", 7200, [USER_DAY]],
    ["phone and user: the user's lifts last", { [PHONE_15M]: NOW + 60 * SECOND, [USER_DAY]: NOW + 3600 * SECOND }, "otp_sends_per_user", 3600, [PHONE_DAY]],
    [
      "phone and user lifting together: the first named",
      { [PHONE_15M]: NOW + 60 * SECOND, [USER_DAY]: NOW + 60 * SECOND },
      "otp_sends_per_phone",
      60,
      [PHONE_DAY],
    ],
    ["every window", { [PHONE_15M]: NOW + 1, [PHONE_DAY]: NOW + 2, [USER_DAY]: NOW + 3 }, "otp_sends_per_user", 1, []],
  ])(
    "refused by %s: names that limit and when it lifts, and gives back the units the others took",
    async (_name, refusals, limit, retryAfterSeconds, refunded) => {
      const { limiter, calls } = scriptedLimiter(refusals);
      const outcome = await consumeAll(limiter, LIMITS, NOW);
      expect(outcome).toMatchObject({ allowed: false, limit, refusal: { kind: "rate_limited", details: { retryAfterSeconds } } });
      expect(calls).toEqual([ALL_WINDOWS, ...refunded.map((key) => `refund ${key}`)]);
    },
  );
});
