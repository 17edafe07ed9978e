/**
 * Embedding Gatehouse in your own TypeScript service: the core decides, you pick the ports.
 * Here: SQLite storage from @gatehouse/adapters-sqlite and an SMS sender of our own.
 *
 *   node --conditions=@gatehouse/source examples/embed.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { createGatehouse, cryptoRandom, systemClock, SYSTEM_ACTOR, type OtpMessage, type SmsSender } from "@gatehouse/core";

/** Any object with `sendOtp` is an SMS port; a real one would call your provider. */
class InboxSms implements SmsSender {
  readonly inbox = new Map<string, string>();
  async sendOtp({ challengeId, otp }: OtpMessage): Promise<void> {
    this.inbox.set(challengeId, otp);
  }
}

const dir = mkdtempSync(join(tmpdir(), "gatehouse-example-"));
const storage = await openSqliteStores({ filename: join(dir, "gatehouse.sqlite") });
const sms = new InboxSms();
const gatehouse = createGatehouse({ stores: storage.stores, sms, clock: systemClock, random: cryptoRandom });

try {
  const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, "Acme");
  await gatehouse.register({ email: "ada@example.com", password: "correct horse battery" });
  await gatehouse.admin.addMember(SYSTEM_ACTOR, orgId, "ada@example.com", "member");
  await gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, orgId, {
    accessControl: { allowedDomains: ["*.example.com"], blockedDomains: ["evil.example.com"], defaultAction: "deny", wildcardSupported: true },
    actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: false },
  });

  // A new device: MFA is required, and with no phone on file Gatehouse asks for one first.
  const login = await gatehouse.login({ email: "ada@example.com", password: "correct horse battery", orgId, deviceFingerprint: "laptop" });
  console.log("login:", login.kind);
  if (login.kind !== "phone_required") throw new Error("expected phone_required on a new device");

  const challenge = await gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: "+15551234567" });
  console.log("challenge sent to", challenge.phoneMask);

  const tokens = await gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: sms.inbox.get(challenge.challengeId)! });
  console.log("signed in; access token expires", new Date(tokens.expiresAt).toISOString());

  // Every request of your service: resolve the bearer token, then ask the policy.
  const principal = await gatehouse.authenticate(tokens.accessToken);
  for (const url of ["https://docs.example.com/guide", "https://evil.example.com/", "javascript:alert(1)"]) {
    const decision = await gatehouse.checkUrlAccess(principal, orgId, url);
    console.log(url, "→", decision.allowed ? `allowed (${decision.canonicalUrl})` : `denied: ${decision.reason}`);
  }

  // The same device is now trusted for 30 days: no second factor.
  const again = await gatehouse.login({ email: "ada@example.com", password: "correct horse battery", orgId, deviceFingerprint: "laptop" });
  console.log("second login:", again.kind);
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
