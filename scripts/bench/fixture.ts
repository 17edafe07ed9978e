/**
 * Seeds the bench database in process, through the core's own API and store ports, before the
 * server starts (the server is not running: no CLI process per user, no OTP send limits to wait
 * out). Users that only need to exist in bulk share one precomputed password hash; challenges for
 * "VerifyMFA alone" are written as Login would write them, with their OTPs kept for the requests.
 */
import { randomInt, randomUUID } from "node:crypto";
import {
  createKdfPasswordHasher,
  cryptoRandom,
  hashOtp,
  OWASP_ARGON2ID_PARAMS,
  SYSTEM_ACTOR,
  type AccessControl,
  type Argon2idParams,
  type Gatehouse,
  type Stores,
} from "@gatehouse/core";
import { benchEngine } from "./engine.ts";
import { generateCorpus, generatePolicy } from "./hosts.ts";

export const PASSWORD = "bench correct horse battery";
/**
 * The cheap hash of the cross-check users: Gatehouse's own time without the KDF. A server rehashes
 * any hash whose parameters are not its own at login, so those users log in to a second server
 * configured with these (CHEAP_ENV).
 */
export const CHEAP_ARGON2ID: Argon2idParams = { memoryKiB: 1024, passes: 1, parallelism: 1 };
export const CHEAP_ENV = { PASSWORD_HASH_MEMORY_KIB: String(CHEAP_ARGON2ID.memoryKiB), PASSWORD_HASH_PASSES: String(CHEAP_ARGON2ID.passes) };

export interface BenchUser {
  readonly email: string;
  readonly password: string;
}

export interface FixtureOptions {
  readonly databaseUrl: string;
  /** Entries in the check-url org's policy (a third wildcards). */
  readonly policyEntries: number;
  /** Users for the full MFA flow with the production hash (5 flows each: the per-phone send limit). */
  readonly mfaUsers: number;
  /** Users for the MFA flow with a cheap hash (the added-time cross-check). */
  readonly cheapMfaUsers: number;
  /** Challenges for "VerifyMFA alone". */
  readonly verifyChallenges: number;
  /** Skip everything but the check-url org, policy and token (the scaling runs). */
  readonly checkUrlOnly?: boolean;
}

export interface Fixture {
  /** Members log in without MFA; holds the `policyEntries` policy. */
  readonly orgNoMfa: string;
  /** Default org settings: MFA on every new device. */
  readonly orgMfa: string;
  /** A 10-entry policy, for the policy-size comparison over HTTP. */
  readonly orgSmallPolicy: string;
  /** Production-hash user, member of orgNoMfa. */
  readonly loginUser: BenchUser;
  /** Cheap-hash user, member of orgNoMfa: the Login cross-check and the bearer token. */
  readonly cheapLoginUser: BenchUser;
  readonly mfaUsers: readonly BenchUser[];
  readonly cheapMfaUsers: readonly BenchUser[];
  /** JSON bodies of VerifyMFA requests, each for its own live challenge. */
  readonly verifyBodies: readonly string[];
  /** A bearer token of cheapLoginUser for orgNoMfa (valid 15 minutes). */
  readonly accessToken: string;
  /** The same user's token for orgSmallPolicy: a session acts only for the org it was issued for. */
  readonly smallPolicyAccessToken: string;
  /** URLs the check-url load cycles through: hits, wildcard hits, misses. */
  readonly checkUrls: readonly string[];
}

const policyInput = (accessControl: AccessControl) => ({
  accessControl,
  actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
});

export async function seedFixture(options: FixtureOptions): Promise<Fixture> {
  // The server's own engine; cheap password parameters, so the bearer token's login below keeps the
  // cheap user's hash as it is.
  const engine = await benchEngine(options.databaseUrl, CHEAP_ENV);
  try {
    const { gatehouse } = engine;
    const { stores } = engine.storage;
    const { admin } = gatehouse;
    const orgNoMfa = (await admin.createOrg(SYSTEM_ACTOR, "Bench: no MFA")).orgId;
    const noMfa = { requireMfaNewDevice: false, requireMfaUntrustedDevice: false };
    await admin.updateOrgMfaSettings(SYSTEM_ACTOR, orgNoMfa, noMfa);
    const orgMfa = (await admin.createOrg(SYSTEM_ACTOR, "Bench: MFA on new devices")).orgId;
    const orgSmallPolicy = (await admin.createOrg(SYSTEM_ACTOR, "Bench: 10-entry policy")).orgId;
    await admin.updateOrgMfaSettings(SYSTEM_ACTOR, orgSmallPolicy, noMfa);
    const policy = generatePolicy(options.policyEntries);
    await admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, orgNoMfa, policyInput(policy.accessControl));
    await admin.updateOrgBrowserPolicy(SYSTEM_ACTOR, orgSmallPolicy, policyInput(generatePolicy(10).accessControl));
    const checkUrls = generateCorpus(policy, 16);

    const cheapHash = await createKdfPasswordHasher(CHEAP_ARGON2ID, cryptoRandom).hash(PASSWORD);
    const cheapLoginUser = await createUser(stores, "cheap-login@bench.test", cheapHash, null);
    for (const orgId of [orgNoMfa, orgSmallPolicy]) await admin.addMember(SYSTEM_ACTOR, orgId, cheapLoginUser.email, "member");
    const accessToken = await tokenFor(gatehouse, cheapLoginUser, orgNoMfa);
    const smallPolicyAccessToken = await tokenFor(gatehouse, cheapLoginUser, orgSmallPolicy);

    if (options.checkUrlOnly === true) {
      return {
        orgNoMfa,
        orgMfa,
        orgSmallPolicy,
        loginUser: cheapLoginUser,
        cheapLoginUser,
        mfaUsers: [],
        cheapMfaUsers: [],
        verifyBodies: [],
        accessToken,
        smallPolicyAccessToken,
        checkUrls,
      };
    }

    // One production-cost hash (OWASP's Argon2id, the server's default); bulk MFA users reuse it.
    const prodHash = await createKdfPasswordHasher(OWASP_ARGON2ID_PARAMS, cryptoRandom).hash(PASSWORD);
    const loginUser: BenchUser = await createUser(stores, "login@bench.test", prodHash, null, orgNoMfa);

    let phone = 0;
    const nextPhone = () => `+1555${String(2_000_000 + ++phone).padStart(7, "0")}`;
    const mfaUsers: BenchUser[] = [];
    for (let i = 0; i < options.mfaUsers; i++) mfaUsers.push(await createUser(stores, `mfa${i}@bench.test`, prodHash, nextPhone(), orgMfa));
    const cheapMfaUsers: BenchUser[] = [];
    for (let i = 0; i < options.cheapMfaUsers; i++) cheapMfaUsers.push(await createUser(stores, `cheap-mfa${i}@bench.test`, cheapHash, nextPhone(), orgMfa));

    // VerifyMFA alone: a challenge per request, 10 per user, each on its own new device, as Login leaves them.
    const verifyBodies: string[] = [];
    const now = Date.now();
    let verifyUser: CreatedUser | null = null;
    for (let i = 0; i < options.verifyChallenges; i++) {
      if (i % 10 === 0) verifyUser = await createUser(stores, `verify${i / 10}@bench.test`, cheapHash, nextPhone(), orgMfa);
      const userId = verifyUser!.id;
      const userPhone = verifyUser!.phone!;
      const { device } = await stores.devices.getOrCreate({
        id: randomUUID(),
        userId,
        orgId: orgMfa,
        fingerprint: `verify-device-${i}`,
        trusted: false,
        trustedUntil: null,
        trustRevokedAt: null,
        sessionIssuedAt: null,
        createdAt: now,
        lastSeenAt: now,
      });
      const challengeId = randomUUID();
      const otp = String(randomInt(0, 1_000_000)).padStart(6, "0");
      await stores.challenges.create({
        id: challengeId,
        userId,
        orgId: orgMfa,
        deviceId: device.id,
        phone: userPhone,
        codeHash: hashOtp(otp, challengeId, undefined),
        attempts: 0,
        expiresAt: now + 30 * 60_000,
        createdAt: now,
      });
      verifyBodies.push(JSON.stringify({ challengeId, otp }));
    }
    return {
      orgNoMfa,
      orgMfa,
      orgSmallPolicy,
      loginUser,
      cheapLoginUser,
      mfaUsers,
      cheapMfaUsers,
      verifyBodies,
      accessToken,
      smallPolicyAccessToken,
      checkUrls,
    };
  } finally {
    await engine.close();
  }
}

interface CreatedUser extends BenchUser {
  readonly id: string;
  readonly phone: string | null;
}

/** A user as Register plus a first phone MFA would leave it (phone verified when given), optionally a member. */
async function createUser(stores: Stores, email: string, passwordHash: string, phone: string | null, orgId?: string): Promise<CreatedUser> {
  const id = randomUUID();
  await stores.users.create({
    id,
    email,
    displayName: "",
    passwordHash,
    phone,
    phoneVerified: phone !== null,
    platformAdmin: false,
    createdAt: Date.now(),
    emailVerifiedAt: Date.now(),
  });
  if (orgId !== undefined) await stores.orgs.putMembership({ orgId, userId: id, role: "member" });
  return { email, password: PASSWORD, id, phone };
}

async function tokenFor(gatehouse: Gatehouse, user: BenchUser, orgId: string): Promise<string> {
  const outcome = await gatehouse.login({ email: user.email, password: user.password, orgId, deviceFingerprint: "bench-token" });
  if (outcome.kind !== "tokens") throw new Error(`expected tokens for ${user.email}, got ${outcome.kind}`);
  return outcome.tokens.accessToken;
}
