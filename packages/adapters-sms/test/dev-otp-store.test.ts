import { describe, expect, it } from "vitest";
import { DevOtpStore } from "../src/index.ts";

const MINUTE = 60_000;

function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

function otpFor(challengeId: string) {
  return { phone: "+15551234567", otp: "123456", challengeId };
}

describe("DevOtpStore", () => {
  it("returns the OTP filed under a challenge, and null for an unknown one", async () => {
    const store = new DevOtpStore({ clock: manualClock() });
    await store.sendOtp({ phone: "+15551234567", otp: "482913", challengeId: "ch_1" });

    expect(store.get("ch_1")).toBe("482913");
    expect(store.get("ch_1")).toBe("482913");
    expect(store.get("ch_unknown")).toBeNull();
  });

  it("keeps the latest OTP when a challenge is filed twice", async () => {
    const store = new DevOtpStore({ clock: manualClock() });
    await store.sendOtp({ phone: "+15551234567", otp: "111111", challengeId: "ch_1" });
    await store.sendOtp({ phone: "+15551234567", otp: "222222", challengeId: "ch_1" });
    expect(store.get("ch_1")).toBe("222222");
    expect(store.size).toBe(1);
  });

  it("expires entries after the default 10 minutes", async () => {
    const clock = manualClock();
    const store = new DevOtpStore({ clock });
    await store.sendOtp(otpFor("ch_1"));

    clock.advance(10 * MINUTE - 1);
    expect(store.get("ch_1")).toBe("123456");
    clock.advance(1);
    expect(store.get("ch_1")).toBeNull();
    expect(store.size).toBe(0);
  });

  it("honours a configured TTL and sweeps expired entries on the next send", async () => {
    const clock = manualClock();
    const store = new DevOtpStore({ clock, ttlMs: 1_000 });
    await store.sendOtp(otpFor("ch_old_1"));
    await store.sendOtp(otpFor("ch_old_2"));
    clock.advance(500);
    await store.sendOtp(otpFor("ch_mid"));
    clock.advance(600);
    await store.sendOtp(otpFor("ch_new"));

    expect(store.size).toBe(2);
    expect(store.get("ch_old_1")).toBeNull();
    expect(store.get("ch_mid")).toBe("123456");
    expect(store.get("ch_new")).toBe("123456");
  });

  it("is bounded: the oldest entries are evicted first", async () => {
    const store = new DevOtpStore({ clock: manualClock(), maxEntries: 3 });
    for (const id of ["ch_1", "ch_2", "ch_3", "ch_4", "ch_5"]) await store.sendOtp(otpFor(id));

    expect(store.size).toBe(3);
    expect(store.get("ch_1")).toBeNull();
    expect(store.get("ch_2")).toBeNull();
    expect(store.get("ch_3")).toBe("123456");
    expect(store.get("ch_5")).toBe("123456");
  });

  it("re-filing a challenge makes it the newest", async () => {
    const store = new DevOtpStore({ clock: manualClock(), maxEntries: 2 });
    await store.sendOtp(otpFor("ch_1"));
    await store.sendOtp(otpFor("ch_2"));
    await store.sendOtp(otpFor("ch_1"));
    await store.sendOtp(otpFor("ch_3"));

    expect(store.get("ch_2")).toBeNull();
    expect(store.get("ch_1")).toBe("123456");
    expect(store.get("ch_3")).toBe("123456");
  });

  it("holds 10,000 entries by default and no more", async () => {
    const store = new DevOtpStore({ clock: manualClock() });
    for (let i = 0; i < 10_050; i += 1) await store.sendOtp(otpFor(`ch_${i}`));
    expect(store.size).toBe(10_000);
    expect(store.get("ch_49")).toBeNull();
    expect(store.get("ch_50")).toBe("123456");
  });

  it("rejects a TTL or size that cannot work", () => {
    expect(() => new DevOtpStore({ ttlMs: 0 })).toThrow(RangeError);
    expect(() => new DevOtpStore({ ttlMs: Number.NaN })).toThrow(RangeError);
    expect(() => new DevOtpStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new DevOtpStore({ maxEntries: 2.5 })).toThrow(RangeError);
  });

  it("works with the system clock when none is injected", async () => {
    const store = new DevOtpStore();
    await store.sendOtp(otpFor("ch_1"));
    expect(store.get("ch_1")).toBe("123456");
  });
});
