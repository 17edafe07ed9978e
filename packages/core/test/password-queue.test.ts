import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createGatehouse, type Gatehouse } from "../src/gatehouse.ts";
import type { AuthOutcome } from "../src/results.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";
import { GatedHasher, settle } from "./gated-hasher.ts";
import { createHarness, PASSWORD } from "./harness.ts";

async function kindOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "ok",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

/** A Gatehouse whose hashes the test releases one by one; Ada (org member, MFA off) is registered. */
async function gatedGatehouse(queueLimit: number) {
  const hasher = new GatedHasher();
  const stores = createMemoryStores();
  const gatehouse: Gatehouse = createGatehouse({
    stores,
    clock: new ManualClock(),
    random: new SequenceRandom(),
    sms: new OutboxSmsSender(),
    email: new OutboxEmailSender(),
    passwordHasher: hasher,
    config: { passwordHashConcurrency: 1, passwordHashQueueLimit: queueLimit },
  });
  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme" });
  await gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
  const registered = gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
  await settle();
  hasher.releaseNext();
  await registered;
  await gatehouse.admin.addMember({ kind: "system" }, { orgId, email: "ada@example.com", role: "member" });
  const login = (email: string, password: string, clientKey = "203.0.113.9"): Promise<AuthOutcome> =>
    gatehouse.login({ email, password, orgId, deviceFingerprint: "laptop", clientKey });
  const drain = async () => {
    await settle();
    while (hasher.pending.length > 0) {
      hasher.releaseNext();
      await settle();
    }
  };
  // The first unknown email makes the dummy hash (once per process); the tests start after it.
  const warmUp = kindOf(login("warm-up@example.com", PASSWORD));
  await drain();
  expect(await warmUp).toBe("invalid_credentials");
  hasher.started.hash = 0;
  hasher.started.verify = 0;
  return { hasher, stores, gatehouse, login, drain };
}

describe("Login and Register through the password hash queue", () => {
  it("queue full: Login answers rate_limited with a retry time instead of piling up", async () => {
    const g = await gatedGatehouse(2);
    const accepted = [g.login("ada@example.com", "wrong 1"), g.login("ada@example.com", "wrong 2"), g.login("ada@example.com", "wrong 3")];
    await settle();
    const error = await g.login("ada@example.com", PASSWORD).then(
      () => null,
      (e: unknown) => e as GatehouseError,
    );
    expect(error?.kind).toBe("rate_limited");
    expect(error?.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(g.hasher.started.verify).toBe(1);
    await g.drain();
    expect(await Promise.all(accepted.map(kindOf))).toEqual(["invalid_credentials", "invalid_credentials", "invalid_credentials"]);
  });

  it("the risk engine reads for a sign-in only once its hash begins: one waiting in the queue or refused by it costs the engine nothing", async () => {
    const g = await gatedGatehouse(2);
    let policyReads = 0;
    const readPolicy = g.stores.risk.policy.bind(g.stores.risk);
    g.stores.risk.policy = (orgId) => {
      policyReads++;
      return readPolicy(orgId);
    };
    const accepted = [g.login("ada@example.com", "wrong 1"), g.login("ada@example.com", "wrong 2"), g.login("ada@example.com", "wrong 3")];
    await settle();
    expect(await kindOf(g.login("ada@example.com", PASSWORD))).toBe("rate_limited");
    expect([g.hasher.started.verify, policyReads]).toEqual([1, 1]);
    await g.drain();
    expect(await Promise.all(accepted.map(kindOf))).toEqual(["invalid_credentials", "invalid_credentials", "invalid_credentials"]);
    expect([g.hasher.started.verify, policyReads]).toEqual([3, 3]);
  });

  it("a legitimate login gets through when the flood is within the queue", async () => {
    const g = await gatedGatehouse(8);
    const flood = Array.from({ length: 6 }, (_, i) => kindOf(g.login(`bot${i}@example.com`, "guess")));
    const legit = g.login("ada@example.com", PASSWORD);
    await g.drain();
    expect((await legit).kind).toBe("tokens");
    expect(await Promise.all(flood)).toEqual(Array(6).fill("invalid_credentials"));
  });

  it("a flood from one client filling the queue does not lock out a client elsewhere", async () => {
    const g = await gatedGatehouse(4);
    const flood = Array.from({ length: 10 }, (_, i) => kindOf(g.login(`bot${i}@example.com`, "guess", "198.51.100.66")));
    await settle();
    const legit = g.login("ada@example.com", PASSWORD, "203.0.113.9");
    // It pushed the flood's newest out of the full queue, and waits one flood hash per turn: the running one and the next.
    await settle();
    for (let i = 0; i < 3; i++) {
      g.hasher.releaseNext();
      await settle();
    }
    expect((await legit).kind).toBe("tokens");
    await g.drain();
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((kind) => kind === "invalid_credentials")).toHaveLength(4);
    expect(outcomes.filter((kind) => kind === "rate_limited")).toHaveLength(6);
  });

  it.each([
    ["unknown emails", (i: number) => [`nobody${i}@example.com`, PASSWORD] as const],
    ["wrong passwords", (i: number) => ["ada@example.com", `wrong ${i}`] as const],
  ])("%s take queue slots the same way (no enumeration by queueing)", async (_name, attempt) => {
    const g = await gatedGatehouse(2);
    const outcomes = Array.from({ length: 5 }, (_, i) => {
      const [email, password] = attempt(i);
      return kindOf(g.login(email, password));
    });
    await settle();
    expect(g.hasher.started.verify).toBe(1);
    expect(g.hasher.pending.map((p) => p.kind)).toEqual(["verify"]);
    await g.drain();
    expect(await Promise.all(outcomes)).toEqual(["invalid_credentials", "invalid_credentials", "invalid_credentials", "rate_limited", "rate_limited"]);
    expect(g.hasher.started.verify).toBe(3);
  });

  it("a login the full queue refuses spends none of the account's guessing budget: the owner is not locked out by a flood", async () => {
    const g = await gatedGatehouse(1);
    const flood = [kindOf(g.login("bot0@example.com", "guess", "198.51.100.66")), kindOf(g.login("bot1@example.com", "guess", "198.51.100.66"))];
    await settle();
    // Twelve tries while the queue is full: more than the budget's 10, none of them a guess.
    for (let i = 0; i < 12; i++) expect(await kindOf(g.login("ada@example.com", PASSWORD))).toBe("rate_limited");
    await g.drain();
    expect(await Promise.all(flood)).toEqual(["invalid_credentials", "invalid_credentials"]);
    const signedIn = g.login("ada@example.com", PASSWORD);
    await g.drain();
    expect((await signedIn).kind).toBe("tokens");
  });

  it("Register hashes through the same queue", async () => {
    const g = await gatedGatehouse(0);
    const running = g.login("ada@example.com", PASSWORD);
    await settle();
    expect(await kindOf(g.gatehouse.register({ email: "grace@example.com", password: PASSWORD, emailVerified: true }))).toBe("rate_limited");
    await g.drain();
    expect((await running).kind).toBe("tokens");
  });
});

/** A hash as Gatehouse stored them before Argon2id: `scrypt$N$r$p$salt$hash`, base64url. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return ["scrypt", 1024, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
}

describe("rehash on login", () => {
  it("a legacy scrypt hash is replaced by a current Argon2id hash at the next successful login", async () => {
    const h = await createHarness();
    const legacy = legacyScryptHash(PASSWORD);
    const current = (await h.stores.users.findById(h.userId))!.passwordHash;
    expect(await h.stores.users.replacePasswordHash(h.userId, current, legacy)).toBe(true);

    await expect(h.login("laptop", "ada@example.com", "wrong password")).rejects.toThrow(GatehouseError);
    expect((await h.stores.users.findById(h.userId))!.passwordHash).toBe(legacy);

    expect((await h.login("laptop")).kind).toBe("phone_required");
    const upgraded = (await h.stores.users.findById(h.userId))!.passwordHash;
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect((await h.login("tablet")).kind).toBe("phone_required");
    expect((await h.stores.users.findById(h.userId))!.passwordHash).toBe(upgraded);
  });

  it("a hash with other Argon2id parameters is replaced with the current ones", async () => {
    const h = await createHarness();
    const stronger = createGatehouse({
      stores: h.stores,
      clock: h.clock,
      random: h.random,
      sms: h.sms,
      email: h.email,
      config: { password: { memoryKiB: 2048, passes: 1, parallelism: 1 } },
    });
    await stronger.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
    expect((await h.stores.users.findById(h.userId))!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=2048,t=1,p=1\$/);
  });

  it("concurrent logins with a stale hash: all succeed, one replacement wins", async () => {
    const g = await gatedGatehouse(10);
    const current = (await g.stores.users.findByEmail("ada@example.com"))!;
    await g.stores.users.replacePasswordHash(current.id, current.passwordHash, `stale$${PASSWORD}`);
    const logins = Array.from({ length: 3 }, () => g.login("ada@example.com", PASSWORD));
    await g.drain();
    expect((await Promise.all(logins)).map((o) => o.kind)).toEqual(["tokens", "tokens", "tokens"]);
    expect(g.hasher.started.hash).toBe(3);
    expect((await g.stores.users.findByEmail("ada@example.com"))!.passwordHash).toBe(`gated$${PASSWORD}`);
  });

  it("when the queue is full the upgrade waits for a later login, and this one still succeeds", async () => {
    const g = await gatedGatehouse(0);
    const current = (await g.stores.users.findByEmail("ada@example.com"))!;
    await g.stores.users.replacePasswordHash(current.id, current.passwordHash, `stale$${PASSWORD}`);
    const login = g.login("ada@example.com", PASSWORD);
    await settle();
    const other = kindOf(g.login("nobody@example.com", PASSWORD, "198.51.100.1"));
    expect(await other).toBe("rate_limited");
    g.hasher.releaseNext();
    await settle();
    // The rehash went straight into the freed slot: it is the one pending now.
    expect(g.hasher.pending.map((p) => p.kind)).toEqual(["hash"]);
    await g.drain();
    expect((await login).kind).toBe("tokens");
  });
});
