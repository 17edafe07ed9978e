/**
 * Seeds a bench database in process, through the server's own composition root (its stores and core, quiet)
 * and the store ports, before the server starts (no CLI process per user, no send limits to wait out). Users
 * that only need to exist in bulk share one precomputed password hash.
 */
import { randomUUID } from "node:crypto";
import {
  createKdfPasswordHasher,
  cryptoRandom,
  OWASP_ARGON2ID_PARAMS,
  SYSTEM_ACTOR,
  totpCodeAt,
  type AccessControl,
  type Argon2idParams,
  type Gatehouse,
  type Stores,
} from "@gatehouse/core";
import { loadConfig } from "../../apps/server/src/config.ts";
import { createEngine, type Engine } from "../../apps/server/src/engine.ts";
import { createLogger } from "../../apps/server/src/logger.ts";
import { generateCorpus, generatePolicy } from "./hosts.ts";

export const PASSWORD = "bench correct horse battery";
/**
 * The cheap hash of the cross-check users: Gatehouse's own time without the KDF. A server rehashes
 * any hash whose parameters are not its own at login, so those users log in to a server configured
 * with these (CHEAP_ENV).
 */
export const CHEAP_ARGON2ID: Argon2idParams = { memoryKiB: 1024, passes: 1, parallelism: 1 };
export const CHEAP_ENV = { PASSWORD_HASH_MEMORY_KIB: String(CHEAP_ARGON2ID.memoryKiB), PASSWORD_HASH_PASSES: String(CHEAP_ARGON2ID.passes) };

/** The server's composition root on a bench database; `env` adds server settings (e.g. cheap password parameters). */
export function benchEngine(databaseUrl: string, env: Readonly<Record<string, string>> = {}): Promise<Engine> {
  return createEngine(loadConfig({ ...env, DATABASE_URL: databaseUrl, DATABASE_CREATE: "true" }), createLogger("silent"));
}

export interface BenchUser {
  readonly email: string;
  readonly password: string;
  /** The base32 secret of the user's one authenticator app (TOTP users only). */
  readonly totpSecret?: string;
}

export interface FixtureOptions {
  readonly databaseUrl: string;
  /** Entries in the check-url org's policy (a third wildcards). */
  readonly policyEntries: number;
  /** Users with a verified phone, for the SMS flow with the production hash (5 flows each: the per-phone send limit); none by default. */
  readonly mfaUsers?: number;
  /** The same with the cheap hash. */
  readonly cheapMfaUsers?: number;
  /** Cheap-hash users with an authenticator app and no phone, for the TOTP flow. */
  readonly totpUsers?: number;
}

export type Fixture = Awaited<ReturnType<typeof seedFixture>>;

const NO_MFA = { requireMfaNewDevice: false, requireMfaUntrustedDevice: false };
const policyInput = (accessControl: AccessControl) => ({ accessControl, actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false } });

/**
 * Two orgs: orgNoMfa (members log in without MFA; the `policyEntries` policy), orgMfa (default settings: MFA on every
 * new device; the bulk users). The bearer token, valid 15 minutes, acts for orgNoMfa; checkUrls are what the check-url
 * load cycles through (hits, wildcard hits, misses). loginUser has the production hash.
 */
export async function seedFixture(options: FixtureOptions) {
  // The server's own engine with cheap password parameters, so the logins below keep the cheap hashes as they are.
  const engine = await benchEngine(options.databaseUrl, CHEAP_ENV);
  try {
    const { gatehouse, storage } = engine;
    const { admin } = gatehouse;
    const orgNoMfa = (await admin.createOrg(SYSTEM_ACTOR, { name: "Bench: no MFA" })).orgId;
    const orgMfa = (await admin.createOrg(SYSTEM_ACTOR, { name: "Bench: MFA on new devices" })).orgId;
    await admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: orgNoMfa, patch: NO_MFA });
    const policy = generatePolicy(options.policyEntries);
    await admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, { orgId: orgNoMfa, policy: policyInput(policy.accessControl) });

    const cheapHash = await createKdfPasswordHasher(CHEAP_ARGON2ID, cryptoRandom).hash(PASSWORD);
    const tokenUser = await createUser(storage.stores, "cheap-login@bench.test", cheapHash, null);
    await admin.addMember(SYSTEM_ACTOR, { orgId: orgNoMfa, email: tokenUser.email, role: "member" });
    const accessToken = await tokenFor(gatehouse, tokenUser, orgNoMfa);

    // One production-cost hash (OWASP's Argon2id, the server's default); bulk users reuse it.
    const prodHash = await createKdfPasswordHasher(OWASP_ARGON2ID_PARAMS, cryptoRandom).hash(PASSWORD);
    const loginUser = await createUser(storage.stores, "login@bench.test", prodHash, null, orgNoMfa);
    let phone = 0;
    const nextPhone = () => `+1555${String(2_000_000 + ++phone).padStart(7, "0")}`;
    const many = async (count: number, prefix: string, hash: string, withPhone: boolean) => {
      const users: BenchUser[] = [];
      for (let i = 0; i < count; i++) users.push(await createUser(storage.stores, `${prefix}${i}@bench.test`, hash, withPhone ? nextPhone() : null, orgMfa));
      return users;
    };
    const mfaUsers = await many(options.mfaUsers ?? 0, "mfa", prodHash, true);
    const cheapMfaUsers = await many(options.cheapMfaUsers ?? 0, "cheap-mfa", cheapHash, true);
    const totpUsers: BenchUser[] = [];
    for (const user of await many(options.totpUsers ?? 0, "totp", cheapHash, false)) {
      await admin.addMember(SYSTEM_ACTOR, { orgId: orgNoMfa, email: user.email, role: "member" });
      totpUsers.push({ ...user, totpSecret: (await enrolTotp(gatehouse, user, orgNoMfa)).secret });
    }
    const checkUrls = generateCorpus(policy, 16);
    return { orgNoMfa, orgMfa, accessToken, checkUrls, loginUser, mfaUsers, cheapMfaUsers, totpUsers };
  } finally {
    await engine.close();
  }
}

/** An admin of a new org whose session stepped up with a new authenticator app (AdminService asks a recent second factor). */
export async function seedAdmin(databaseUrl: string): Promise<{ orgId: string; token: string }> {
  const engine = await benchEngine(databaseUrl, CHEAP_ENV);
  try {
    const { gatehouse } = engine;
    const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Bench: admin saves" });
    await gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: NO_MFA });
    const user = { email: "admin@bench.test", password: PASSWORD };
    await gatehouse.register({ ...user, emailVerified: true });
    await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email: user.email, role: "admin" });
    const { principal, secret } = await enrolTotp(gatehouse, user, orgId);
    const { challengeId } = await gatehouse.account.startStepUp(principal);
    // The next time step's code: the enrolment used up the current one.
    const stepped = await gatehouse.verifyMfa({ challengeId, otp: totpCodeAt(secret, Date.now() + 30_000), factor: "totp" });
    return { orgId, token: stepped.accessToken };
  } finally {
    await engine.close();
  }
}

/** Enrols an app as a user does it: signed in to `orgId`, where no MFA is asked, the app is their first factor (no step-up). */
async function enrolTotp(gatehouse: Gatehouse, user: BenchUser, orgId: string) {
  const principal = await gatehouse.authenticate(await tokenFor(gatehouse, user, orgId));
  const { enrollmentId, secret } = await gatehouse.account.startTotpEnrollment(principal, { label: "bench app", proof: { currentPassword: user.password } });
  await gatehouse.account.confirmTotpEnrollment(principal, { enrollmentId, code: totpCodeAt(secret, Date.now()) });
  return { principal, secret };
}

/** A user as Register plus a first phone MFA would leave it (phone verified when given), optionally a member. */
async function createUser(stores: Stores, email: string, passwordHash: string, phone: string | null, orgId?: string): Promise<BenchUser> {
  const id = randomUUID();
  const now = Date.now();
  await stores.users.create({
    id,
    email,
    displayName: "",
    passwordHash,
    phone,
    phoneVerified: phone !== null,
    platformAdmin: false,
    createdAt: now,
    emailVerifiedAt: now,
  });
  if (orgId !== undefined) await stores.orgs.putMembership({ orgId, userId: id, role: "member" });
  return { email, password: PASSWORD };
}

async function tokenFor(gatehouse: Gatehouse, user: BenchUser, orgId: string): Promise<string> {
  const outcome = await gatehouse.login({ email: user.email, password: user.password, orgId, deviceFingerprint: "bench-token" });
  if (outcome.kind !== "tokens") throw new Error(`expected tokens for ${user.email}, got ${outcome.kind}`);
  return outcome.tokens.accessToken;
}
