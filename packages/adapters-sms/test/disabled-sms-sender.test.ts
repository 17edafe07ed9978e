import { describe, expect, it } from "vitest";
import { createDisabledSmsSender, type SmsSkipInfo } from "../src/index.ts";

const message = { phone: "+15551234567", otp: "482913", challengeId: "ch_1" };

describe("createDisabledSmsSender", () => {
  it("succeeds without a callback, and says it sends nothing (so the core records no otp.sent)", async () => {
    const sender = createDisabledSmsSender();
    await expect(sender.sendOtp(message)).resolves.toBeUndefined();
    expect(sender.sendsNothing).toBe(true);
  });

  it("tells the callback the challenge id only: no OTP, no phone", async () => {
    const skipped: SmsSkipInfo[] = [];
    await createDisabledSmsSender((info) => skipped.push(info)).sendOtp(message);

    expect(skipped).toEqual([{ challengeId: "ch_1" }]);
    expect(JSON.stringify(skipped)).not.toContain("482913");
    expect(JSON.stringify(skipped)).not.toContain("5551234567");
  });

  it("still succeeds when the callback throws, so the challenge survives a broken logger", async () => {
    const sender = createDisabledSmsSender(() => {
      throw new Error("log sink down");
    });
    await expect(sender.sendOtp(message)).resolves.toBeUndefined();
  });
});
