/**
 * Issue 44's attacks on the owner, over the wire on SQLite and PostgreSQL: the real `gatehouse serve` process,
 * each client naming its address through X-Forwarded-For (TRUST_PROXY=1), every email delivered to a real SMTP
 * server started here. A stranger's wrong passwords and reset requests do not keep the owner out.
 */
import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { Code } from "@connectrpc/connect";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { onPostgres } from "./support/postgres.ts";
import type { SmtpCatcher } from "./support/smtp-catcher.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const WRONG = "not the password";
const HOME = "198.51.100.20";
const OWNER_PHONE = "+15550004444";

const dialects = await wireDialects("the PostgreSQL variant of the owner-lockout tests", "gh_i44b");

describe.each(dialects)("a stranger cannot keep the owner out, over the wire (%s)", (name, openDatabase, enabled) => {
  let database: WireDatabase;
  let smtp: SmtpCatcher;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let orgId: string;
  let counter = 0;

  // REFUSAL_PAUSE_MS=0: the refused guesses are answered at once instead of after the flood-shedding pause.
  serveOverTheWire(openDatabase, enabled, { env: { TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0" }, smtp: true }, async (wire) => {
    ({ database, smtp, storage, operator, api } = wire);
    ({ orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" }));
  });

  const from = (clientIp: string) => ({ headers: { "x-forwarded-for": clientIp } });

  /** A verified member of Acme, with an address of their own. */
  async function aMember(role: "member" | "admin" = "member") {
    const email = `owner${++counter}@acme.test`;
    await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role });
    return email;
  }

  const login = (email: string, clientIp: string, fingerprint: string, password = PASSWORD, unblockToken = "") =>
    api.auth.login({ email, password, orgId, deviceFingerprint: fingerprint, unblockToken }, from(clientIp));

  /** Signs in from `clientIp` through the second factor: the network becomes the account's. */
  async function signInAt(email: string, clientIp: string, fingerprint: string) {
    const outcome = await login(email, clientIp, fingerprint);
    if (outcome.result.case === "tokens") return outcome.result.value;
    let challengeId: string;
    if (outcome.result.case === "mfaRequired") challengeId = outcome.result.value.challengeId;
    else if (outcome.result.case === "phoneRequired")
      ({ challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: OWNER_PHONE }, from(clientIp)));
    else throw new Error("no outcome");
    const { otp } = await api.dev.getOTP({ challengeId });
    return api.auth.verifyMFA({ challengeId, otp }, from(clientIp));
  }

  /** `count` wrong passwords, 10 from each of networks the owner never used, each from a fresh device. */
  async function strangerGuesses(email: string, count: number, subnet: number) {
    const codes: string[] = [];
    for (let i = 0; i < count; i++) {
      const refused = await rpcError(login(email, `203.${subnet}.${Math.floor(i / 10)}.${i % 10}`, `attacker-${i}`, WRONG));
      codes.push(Code[refused.code]);
    }
    return codes;
  }

  const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

  it.runIf(enabled)("after a stranger's 100 wrong passwords from other networks, the owner signs in from home on a new device", async () => {
    const owner = await aMember();
    await signInAt(owner, HOME, "owner-laptop");
    expect(await strangerGuesses(owner, 100, 1)).toEqual(Array(100).fill("Unauthenticated"));
    const outcome = await login(owner, "198.51.100.77", "new-browser");
    expect(outcome.result.case).toBe("mfaRequired");
    // The owner's known device, from anywhere.
    expect((await login(owner, "192.0.2.44", "owner-laptop")).result.case).toBe("tokens");
  });

  it.runIf(enabled)(
    "past the ceiling a new place is refused and the owner is mailed an unblock link: it signs in as far as the second factor, once, and expires",
    async () => {
      const owner = await aMember();
      await strangerGuesses(owner, 100, 2);
      const refused = await rpcError(login(owner, "192.0.2.44", "hotel-pc"));
      expect(refused.code).toBe(Code.ResourceExhausted);

      const token = await smtp.tokenFor(owner, "login");
      const mail = smtp.to(owner).at(-1)!.data;
      expect(mail).toContain(`/login#unblock=${token}`);
      // At rest: the SHA-256 of the token only, alive for 30 minutes.
      const now = Date.now();
      expect(await storage.stores.emailTokens.find(sha256(token), "unblock_sign_in", now)).not.toBeNull();
      expect(await storage.stores.emailTokens.find(sha256(token), "unblock_sign_in", now + 30 * 60_000)).toBeNull();
      expect(await storage.stores.emailTokens.find(token, "unblock_sign_in", now)).toBeNull();

      const unblocked = await login(owner, "192.0.2.44", "hotel-pc", PASSWORD, token);
      expect(unblocked.result.case).toBe("phoneRequired");
      expect((await rpcError(login(owner, "192.0.2.44", "hotel-pc", PASSWORD, token))).code).toBe(Code.ResourceExhausted);
      expect(await storage.stores.emailTokens.find(sha256(token), "unblock_sign_in", Date.now())).toBeNull();
    },
  );

  it.runIf(enabled)("after a stranger's reset requests the owner's own reset from home and the admin's invitation and reset go out", async () => {
    const owner = await aMember();
    await signInAt(owner, HOME, "owner-laptop");
    const newHire = `newhire${counter}@acme.test`;
    for (let i = 0; i < 30; i++) {
      await api.auth.requestPasswordReset({ email: owner }, from(`203.3.${i}.1`));
      await api.auth.requestPasswordReset({ email: newHire }, from(`203.4.${i}.1`));
    }
    const strangers = await smtp.tokenFor(owner, "reset-password");

    await api.auth.requestPasswordReset({ email: owner }, from(HOME));
    const owners = await waitForNewToken(owner, "reset-password", strangers);
    await api.auth.resetPassword({ token: owners, newPassword: "the owner's own new one" }, from(HOME));

    const adminEmail = await aMember("admin");
    const admin = bearer((await signInAt(adminEmail, "198.51.100.99", "admin-laptop")).accessToken);
    expect((await api.admin.addMember({ orgId, email: newHire, role: "member" }, admin)).status).toBe("invited");
    expect(await smtp.tokenFor(newHire, "accept-invitation")).toBeTruthy();
    const userId = (await storage.stores.users.findByEmail(owner))!.id;
    await api.admin.sendPasswordReset({ orgId, userId }, admin);
    await waitForNewToken(owner, "reset-password", owners);
  });

  it.runIf(enabled)("the limits table holds no email and no phone", async () => {
    const owner = await aMember();
    await signInAt(owner, HOME, "owner-laptop");
    await rpcError(login(owner, "192.0.2.1", "pc", WRONG));
    await api.auth.requestPasswordReset({ email: owner }, from("192.0.2.1"));
    const keys = await rateLimitKeys();
    expect(keys.some((key) => key.startsWith("password-fail:network:"))).toBe(true);
    expect(keys.some((key) => key.startsWith("otp-send:phone:"))).toBe(true);
    for (const key of keys) expect(key).not.toMatch(/@|acme|5550004444|555000/);
  });

  /** The newest link to `page` mailed to `to` once it is another than `old` (delivery is not awaited by the server). */
  async function waitForNewToken(to: string, page: string, old: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const token = await smtp.tokenFor(to, page);
      if (token !== old) return token;
      if (Date.now() > deadline) throw new Error(`no new ${page} link mailed to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function rateLimitKeys(): Promise<string[]> {
    if (name === "SQLite") {
      const db = new BetterSqlite3(database.url, { readonly: true });
      try {
        return (db.prepare("select key from rate_limits").all() as { key: string }[]).map((row) => row.key);
      } finally {
        db.close();
      }
    }
    const { rows } = await onPostgres((client) => client.query<{ key: string }>("select key from rate_limits"), database.url);
    return rows.map((row) => row.key);
  }
});
