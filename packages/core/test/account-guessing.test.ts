import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const MINUTE = 60_000;
const WRONG = "not the password";

async function refusalOf(operation: Promise<unknown>): Promise<GatehouseError | "resolved"> {
  return operation.then(
    () => "resolved" as const,
    (error: unknown) => {
      if (!(error instanceof GatehouseError)) throw error;
      return error;
    },
  );
}

async function kindsOf(h: Harness, count: number, fingerprint: string, email = "ada@example.com", password = WRONG): Promise<string[]> {
  const kinds: string[] = [];
  for (let i = 0; i < count; i++) {
    const refusal = await refusalOf(h.login(fingerprint, email, password));
    kinds.push(refusal === "resolved" ? "resolved" : refusal.kind);
  }
  return kinds;
}

describe("the per-account guessing budget", () => {
  it("400 wrong passwords from unknown devices, then the right one: refused with the retry time; the owner's known device still signs in", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "owner-laptop");
    const kinds = await kindsOf(h, 400, "attacker");
    expect(kinds.slice(0, 10)).toEqual(Array(10).fill("invalid_credentials"));
    expect(new Set(kinds.slice(10))).toEqual(new Set(["rate_limited"]));

    const right = await refusalOf(h.login("attacker-2"));
    expect(right).toMatchObject({ kind: "rate_limited", details: { retryAfterSeconds: 15 * 60 } });
    expect((await h.login("owner-laptop")).kind).toBe("tokens");

    const throttled = (await h.stores.audit.list({ limit: 1000, kinds: ["sign_in.throttled"] })).events;
    expect(throttled).toHaveLength(391);
    expect(throttled[0]).toMatchObject({ actor: { kind: "anonymous" }, orgId: h.orgId, userId: h.userId, payload: { retryAfterSeconds: 15 * 60 } });
  });

  it("lifts once the oldest wrong guesses leave the 15-minute window", async () => {
    const h = await createHarness();
    await kindsOf(h, 10, "attacker");
    h.clock.advance(15 * MINUTE - 1);
    expect(await refusalOf(h.login("laptop"))).toMatchObject({ kind: "rate_limited", details: { retryAfterSeconds: 1 } });
    h.clock.advance(1);
    expect((await h.login("laptop")).kind).toBe("phone_required");
  });

  it("parallel guesses cannot pass it: of 30 at once, exactly 10 are checked", async () => {
    const h = await createHarness();
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => refusalOf(h.login("attacker", "ada@example.com", WRONG))));
    const kinds = outcomes.map((outcome) => (outcome === "resolved" ? outcome : outcome.kind));
    expect(kinds.filter((kind) => kind === "invalid_credentials")).toHaveLength(10);
    expect(kinds.filter((kind) => kind === "rate_limited")).toHaveLength(20);
  });

  it("a right password is no guess: it gives its unit back", async () => {
    const h = await createHarness();
    await kindsOf(h, 9, "attacker");
    expect(await kindsOf(h, 5, "laptop", "ada@example.com", PASSWORD)).toEqual(Array(5).fill("resolved"));
    expect(await kindsOf(h, 2, "attacker")).toEqual(["invalid_credentials", "rate_limited"]);
  });

  it("a known device has a budget of its own, spent by its own wrong guesses", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "owner-laptop");
    await kindsOf(h, 10, "attacker");
    expect(await kindsOf(h, 11, "owner-laptop")).toEqual([...Array(10).fill("invalid_credentials"), "rate_limited"]);
  });

  it("a sign-in without a fingerprint is never a known device: it shares the account's budget, even after such a sign-in had a session", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "");
    expect(await kindsOf(h, 11, "")).toEqual([...Array(10).fill("invalid_credentials"), "rate_limited"]);
    expect(await kindsOf(h, 1, "attacker")).toEqual(["rate_limited"]);
  });

  it("a device is known for the user who had a session on it, not for another user", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    await signInWithPhone(h, "shared-laptop");
    await kindsOf(h, 10, "elsewhere", "bob@example.com");
    expect(await kindsOf(h, 1, "shared-laptop", "bob@example.com")).toEqual(["rate_limited"]);
  });

  it("ChangePassword's current password spends a budget of the user's own: a session cannot try passwords until one fits", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "owner-laptop");
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h, "stolen-session")).accessToken);
    const change = (currentPassword: string) => refusalOf(h.gatehouse.changePassword(principal, { currentPassword, newPassword: "a brand new passphrase" }));
    for (let i = 0; i < 10; i++) expect(await change(`${WRONG} ${i}`)).toMatchObject({ kind: "invalid_argument" });
    expect(await change(PASSWORD)).toMatchObject({ kind: "rate_limited", details: { retryAfterSeconds: 15 * 60 } });
    // The password is still the owner's, and the owner's own device keeps its budget.
    expect((await h.login("owner-laptop")).kind).toBe("tokens");
  });

  it("strangers' wrong passwords never refuse the owner's ChangePassword", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h, "owner-laptop")).accessToken);
    await kindsOf(h, 200, "attacker");
    await h.gatehouse.changePassword(principal, { currentPassword: PASSWORD, newPassword: "a brand new passphrase" });
  });

  it("a right current password gives its unit back", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    const change = (currentPassword: string, newPassword: string) => refusalOf(h.gatehouse.changePassword(principal, { currentPassword, newPassword }));
    for (let i = 0; i < 9; i++) expect(await change(`${WRONG} ${i}`, "a brand new passphrase")).toMatchObject({ kind: "invalid_argument" });
    expect(await change(PASSWORD, "a brand new passphrase")).toBe("resolved");
    expect(await change(WRONG, "another new passphrase")).toMatchObject({ kind: "invalid_argument" });
    expect(await change("a brand new passphrase", "another new passphrase")).toMatchObject({ kind: "rate_limited" });
  });

  it("an unknown email is throttled exactly as a registered one, so the refusal tells nothing", async () => {
    const h = await createHarness();
    const unknown = await kindsOf(h, 11, "attacker", "nobody@example.com");
    const known = await kindsOf(h, 11, "attacker", "ada@example.com");
    expect(unknown).toEqual(known);
    expect(unknown.at(-1)).toBe("rate_limited");
  });
});
