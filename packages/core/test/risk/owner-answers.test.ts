/** `/account`'s recent sign-ins and the owner's answers on them: "This was me", and "This wasn't me", which evicts. */
import { describe, expect, it } from "vitest";
import { GatehouseError } from "../../src/errors.ts";
import { createHarness, PASSWORD, signInWithPhone } from "../harness.ts";

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

/** The laptop trusted through SMS, then a second session on it (the default policy, audit, records each sign-in). */
async function setUp() {
  const h = await createHarness();
  await signInWithPhone(h, "laptop");
  const tokens = await signInWithPhone(h, "laptop");
  const principal = await h.gatehouse.authenticate(tokens.accessToken);
  const signIns = await h.gatehouse.account.recentSignIns(principal, { limit: 10 });
  return { h, tokens, principal, signIns };
}

describe("recent sign-ins", () => {
  it("lists the user's judged sign-ins newest first, with their facts and no answer yet", async () => {
    const { h, signIns } = await setUp();
    expect(signIns.length).toBeGreaterThanOrEqual(2);
    expect(signIns[0]).toMatchObject({ orgId: h.orgId, decision: "allow", answer: null, country: null, browser: null });
    expect(signIns[0]!.at).toBeGreaterThanOrEqual(signIns[1]!.at);
  });

  it("refuses a limit out of range", async () => {
    const { h, principal } = await setUp();
    expect(await kindOf(h.gatehouse.account.recentSignIns(principal, { limit: 0 }))).toBe("invalid_argument");
    expect(await kindOf(h.gatehouse.account.recentSignIns(principal, { limit: 51 }))).toBe("invalid_argument");
  });
});

describe("answering a sign-in", () => {
  it("This was me: recorded as a false positive, the sessions untouched", async () => {
    const { h, tokens, principal, signIns } = await setUp();
    await h.gatehouse.account.answerSignIn(principal, { eventId: signIns[0]!.eventId, answer: "mine" });
    expect((await h.gatehouse.account.recentSignIns(principal, { limit: 1 }))[0]?.answer).toBe("false_positive");
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("resolved");
    expect(h.email.sent).toHaveLength(0);
  });

  it("This wasn't me: a true positive; every session and refresh token ended, the device untrusted, a reset link mailed", async () => {
    const { h, tokens, principal, signIns } = await setUp();
    await h.gatehouse.account.answerSignIn(principal, { eventId: signIns[0]!.eventId, answer: "not_mine" });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken, deviceFingerprint: "laptop" }))).toBe("unauthenticated");
    // The laptop is new again: the password alone no longer signs in there.
    expect((await h.login("laptop")).kind).not.toBe("tokens");
    await Promise.resolve();
    expect(h.email.sent.map((message) => message.to)).toEqual(["ada@example.com"]);
    expect(h.email.sent[0]?.text).toContain("/reset-password#token=");
    const [event] = await h.stores.risk
      .listEvents({ orgId: h.orgId, userId: h.userId, limit: 50 })
      .then((all) => all.filter((each) => each.id === signIns[0]!.eventId));
    expect(event?.answer?.kind).toBe("true_positive");
    const revoked = await h.stores.audit.list({ limit: 10, kinds: ["session.revoked"] });
    expect(revoked.events[0]?.payload).toMatchObject({ reason: "sign_in_disowned" });
  });

  it("refuses another user's sign-in as not found, and an answer it does not know", async () => {
    const { h, principal, signIns } = await setUp();
    await h.gatehouse.register({ email: "eve@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: h.orgId, email: "eve@example.com", role: "member" });
    const eve = await h.gatehouse.login({ email: "eve@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "eve" }).catch(() => null);
    expect(eve).not.toBeNull();
    const evesEvent = (await h.stores.risk.listEvents({ orgId: h.orgId, limit: 50 })).find((event) => event.userId !== h.userId);
    expect(await kindOf(h.gatehouse.account.answerSignIn(principal, { eventId: evesEvent!.id, answer: "not_mine" }))).toBe("not_found");
    const answer = "maybe" as "mine";
    expect(await kindOf(h.gatehouse.account.answerSignIn(principal, { eventId: signIns[0]!.eventId, answer }))).toBe("invalid_argument");
  });
});
