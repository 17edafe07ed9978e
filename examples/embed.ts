// Embedding Gatehouse: the core decides, you pick the ports (storage, SMS, email, clock, randomness).
// Run it: `node --conditions=@gatehouse/source examples/embed.ts` in this repository, or `node embed.ts`
// in a project with @gatehouse/core and @gatehouse/adapters-sqlite installed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import {
  createGatehouse,
  cryptoRandom,
  GatehouseError,
  systemClock,
  SYSTEM_ACTOR,
  type EmailMessage,
  type EmailSender,
  type OtpMessage,
  type SmsSender,
} from "@gatehouse/core";

// The SMS port is one method: `sendOtp({ phone, otp, challengeId }): Promise<void>`. Reject when delivery
// fails (without the OTP in the error): the core then deletes the challenge and answers `sms_unavailable`.
// A real sender calls your provider (or use createHttpSmsSender from @gatehouse/adapters-sms); this one
// keeps each code in memory so the program can type it in.
class InboxSms implements SmsSender {
  readonly inbox = new Map<string, string>();
  async sendOtp({ challengeId, otp }: OtpMessage): Promise<void> {
    this.inbox.set(challengeId, otp);
  }
}

// The email port is one method too: `send({ to, subject, text })`. Gatehouse emails single-use links
// (verify the address, reset a password, accept an invitation) that open PUBLIC_URL's pages; use
// createSmtpEmailSender from @gatehouse/adapters-email for real delivery. This one keeps each link in memory.
class InboxEmail implements EmailSender {
  readonly links = new Map<string, string>();
  async send({ to, text }: EmailMessage): Promise<void> {
    const link = /https?:\/\/\S+/.exec(text)?.[0];
    if (link !== undefined) this.links.set(to, link);
  }
}

const dir = mkdtempSync(join(tmpdir(), "gatehouse-example-"));
const storage = await openSqliteStores({ filename: join(dir, "gatehouse.sqlite") }); // creates and migrates the file
const sms = new InboxSms();
const email = new InboxEmail();
const gatehouse = createGatehouse({ stores: storage.stores, sms, email, clock: systemClock, random: cryptoRandom });

try {
  // Administration: SYSTEM_ACTOR is the operator (what the CLI uses); signed-in admins pass { kind: "user", userId }.
  const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
  // Register creates an unverified account and emails a verification link (its token is after "#token=").
  // An account whose email you already trust: register({ ..., emailVerified: true }) and skip this step.
  // It answers a registrant proof: the link keeps this password only when opened with it (the same client that
  // registered); opened without it, the link asks for a new password (docs/decisions/registrant-proof.md).
  const { registrantProof } = await gatehouse.register({ email: "ada@example.com", password: "correct horse battery" });
  const link = new URL(email.links.get("ada@example.com")!);
  await gatehouse.verifyEmail({ token: new URLSearchParams(link.hash.slice(1)).get("token")!, registrantProof });
  console.log("email verified through", link.pathname);
  await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" }); // role: "member" | "admin"
  await gatehouse.admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, {
    orgId,
    policy: {
      accessControl: { allowedDomains: ["*.example.com"], blockedDomains: ["evil.example.com"], defaultAction: "deny", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: false },
    },
  });

  // Login answers one of three outcomes, each with its payload under its own key:
  //   { kind: "tokens", tokens: { accessToken, refreshToken, expiresAt, userId, orgId } }
  //   { kind: "mfa_required", challenge: { challengeId, phoneMask } }   (the OTP was sent)
  //   { kind: "phone_required", intent: { intentId } }                  (no phone on file yet)
  // A new device needs MFA, and with no phone on file Gatehouse asks for one first.
  const login = await gatehouse.login({ email: "ada@example.com", password: "correct horse battery", orgId, deviceFingerprint: "laptop" });
  console.log("login:", login.kind);
  if (login.kind !== "phone_required") throw new Error("expected phone_required on a new device");

  const challenge = await gatehouse.submitPhoneAndRequestMfa({ intentId: login.intent.intentId, phone: "+15551234567" });
  console.log("challenge sent to", challenge.phoneMask);

  try {
    await gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: "000000" });
  } catch (error) {
    // Every failure is a GatehouseError with a `kind` from a closed union and the spec's message.
    if (!(error instanceof GatehouseError)) throw error;
    console.log("wrong code:", error.kind);
  }
  const tokens = await gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: sms.inbox.get(challenge.challengeId)! });
  console.log("signed in; access token expires", new Date(tokens.expiresAt).toISOString());

  // Every request of your service: resolve the bearer token, then ask the policy.
  const principal = await gatehouse.authenticate(tokens.accessToken);
  for (const url of ["https://docs.example.com/guide", "https://evil.example.com/", "javascript:alert(1)"]) {
    const decision = await gatehouse.checkUrlAccess(principal, orgId, url);
    console.log(url, "→", decision.allowed ? `allowed (${decision.canonicalUrl})` : `denied: ${decision.reason}`);
  }

  // The device is now trusted for 30 days: no second factor.
  const again = await gatehouse.login({ email: "ada@example.com", password: "correct horse battery", orgId, deviceFingerprint: "laptop" });
  console.log("second login:", again.kind);
} finally {
  await storage.close(); // closes the database; the gatehouse object is unusable afterwards
  rmSync(dir, { recursive: true, force: true });
}
