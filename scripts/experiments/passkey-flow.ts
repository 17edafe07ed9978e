/**
 * Server time of a passkey sign-in (StartPasskeySignIn + FinishPasskeySignIn) next to the SMS MFA flow
 * (Login + VerifyMFA, its password hash taken out), in process on SQLite (or PostgreSQL), alternated flow by
 * flow so that the machine's drift falls on both alike. Only the core's calls are timed: the authenticator's
 * signature (`SoftAuthenticator`) and reading the texted code happen between them, off the clock. The
 * password hash is timed inside the hasher and subtracted, since the question is what the rest of the flow
 * costs, and a passkey sign-in has no hash.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/passkey-flow.ts [sqlite|postgres]
 *
 * `FLOWS` (default 400) flows of each after 50 of each to warm up. PostgreSQL creates and drops one
 * database through `BENCH_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openPostgresStores } from "@gatehouse/adapters-postgres";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { createGatehouse, createKdfPasswordHasher, cryptoRandom, systemClock, SYSTEM_ACTOR, type PasswordHasher, type Stores } from "@gatehouse/core";
import { OutboxSmsSender, SoftAuthenticator } from "@gatehouse/core/testing";
import pg from "pg";

const dialect = process.argv[2] ?? "sqlite";
if (dialect !== "sqlite" && dialect !== "postgres") throw new Error("usage: passkey-flow.ts [sqlite|postgres]");
const FLOWS = Number(process.env.FLOWS ?? 400);
const WARM_UP = 50;
const PASSWORD = "correct horse battery";
const ORIGIN = "http://localhost:8080";
const UNLIMITED = { limit: 1_000_000_000, windowMs: 60_000 };

interface Opened {
  readonly stores: Stores;
  readonly close: () => Promise<void>;
}

async function open(): Promise<Opened> {
  if (dialect === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "gatehouse-passkey-flow-"));
    const opened = await openSqliteStores({ filename: join(directory, "bench.sqlite") });
    return {
      stores: opened.stores,
      close: async () => {
        await opened.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `gh_passkey_flow_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const opened = await openPostgresStores({ connectionString: url.toString() });
  return {
    stores: opened.stores,
    close: async () => {
      await opened.close();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    },
  };
}

/** Times the password hash's verifications, so the SMS flow can be reported without them. */
function timedHasher(inner: PasswordHasher): PasswordHasher & { spentMs: number } {
  const hasher = {
    spentMs: 0,
    hash: (password: string) => inner.hash(password),
    async verify(password: string, stored: string) {
      const start = performance.now();
      try {
        return await inner.verify(password, stored);
      } finally {
        hasher.spentMs += performance.now() - start;
      }
    },
  };
  return hasher;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const opened = await open();
try {
  const sms = new OutboxSmsSender();
  const hasher = timedHasher(createKdfPasswordHasher({ memoryKiB: 1024, passes: 1, parallelism: 1 }, cryptoRandom));
  const gatehouse = createGatehouse({
    stores: opened.stores,
    sms,
    email: { send: async () => {} },
    clock: systemClock,
    random: cryptoRandom,
    passwordHasher: hasher,
    config: {
      webauthn: { rpId: "localhost", rpName: "Gatehouse", origins: [ORIGIN] },
      otpSendsPerPhone: [UNLIMITED],
      otpSendsPerUser: [UNLIMITED],
      otpSendsPerPrefix: [UNLIMITED],
      otpSendsPerCountry: UNLIMITED,
      otpFailuresPerUser: UNLIMITED,
      passkeySignInsPerClient: UNLIMITED,
      anonymousAuditPerIp: UNLIMITED,
      smsBreaker: { windowMs: 60_000, minConversion: 0, minSendsPerPrefix: 1_000_000_000, minSendsPerCountry: 1_000_000_000, cooldownMs: 60_000 },
    },
  });
  const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, "Bench");
  for (const email of ["sms@example.com", "passkey@example.com"]) {
    await gatehouse.register({ email, password: PASSWORD, emailVerified: true });
    await gatehouse.admin.addMember(SYSTEM_ACTOR, orgId, email, "member");
  }

  /** A first sign-in that locks the phone; answers the session's tokens. */
  const enrolPhone = async (email: string, phone: string) => {
    const outcome = await gatehouse.login({ email, password: PASSWORD, orgId, deviceFingerprint: "setup" });
    if (outcome.kind !== "phone_required") throw new Error(`expected a phone intent, got ${outcome.kind}`);
    const { challengeId } = await gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone });
    return gatehouse.verifyMfa({ challengeId, otp: sms.lastOtpFor(challengeId) ?? "" });
  };
  await enrolPhone("sms@example.com", "+15551230001");
  const principal = await gatehouse.authenticate((await enrolPhone("passkey@example.com", "+15551230002")).accessToken);
  const authenticator = new SoftAuthenticator({ origin: ORIGIN });
  const registration = await gatehouse.account.startPasskeyRegistration(principal, "Bench");
  await gatehouse.account.finishPasskeyRegistration(principal, registration.registrationId, authenticator.register(registration.webauthnOptionsJson));

  let device = 0;
  const smsFlow = async (): Promise<number> => {
    const hashBefore = hasher.spentMs;
    const loginStart = performance.now();
    const outcome = await gatehouse.login({ email: "sms@example.com", password: PASSWORD, orgId, deviceFingerprint: `sms-${device++}` });
    const loginMs = performance.now() - loginStart;
    if (outcome.kind !== "mfa_required") throw new Error(`expected MFA, got ${outcome.kind}`);
    const otp = sms.lastOtpFor(outcome.challenge.challengeId) ?? "";
    const verifyStart = performance.now();
    await gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp });
    return loginMs + (performance.now() - verifyStart) - (hasher.spentMs - hashBefore);
  };
  const passkeyFlow = async (): Promise<number> => {
    const startStart = performance.now();
    const { challengeId, webauthnOptionsJson } = await gatehouse.startPasskeySignIn({ orgId, request: { clientIp: "192.0.2.1" } });
    const startMs = performance.now() - startStart;
    const response = authenticator.authenticate(webauthnOptionsJson);
    const finishStart = performance.now();
    await gatehouse.finishPasskeySignIn({ challengeId, webauthnResponseJson: response, deviceFingerprint: `passkey-${device++}` });
    return startMs + (performance.now() - finishStart);
  };

  for (let i = 0; i < WARM_UP; i++) {
    await smsFlow();
    await passkeyFlow();
  }
  const smsMs: number[] = [];
  const passkeyMs: number[] = [];
  for (let i = 0; i < FLOWS; i++) {
    smsMs.push(await smsFlow());
    passkeyMs.push(await passkeyFlow());
  }
  const row = (name: string, values: number[]) => `${name.padEnd(52)} ${median(values).toFixed(3).padStart(8)} ms`;
  console.log(`${dialect}, ${FLOWS} flows each, in process, median server time per flow:`);
  console.log(row("SMS flow (Login + VerifyMFA, password hash taken out)", smsMs));
  console.log(row("passkey sign-in (StartPasskeySignIn + FinishPasskeySignIn)", passkeyMs));
} finally {
  await opened.close();
}
