/**
 * What other services need to trust a Gatehouse user (docs/integration.md): signing keys and their
 * rotation, access JWTs for a session's bearer, the key set verifiers fetch, the resource servers that
 * introspect, and introspection itself. The opaque session stays the source of truth: a JWT is a
 * short-lived copy of what the session proved, and introspection answers from the session.
 */
import { timingSafeEqual } from "node:crypto";
import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from "jose";
import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument, rateLimited } from "../errors.ts";
import { newId } from "../ids.ts";
import type { EpochMs, Session } from "../model.ts";
import type { AccessJwtForTokens, IssuedTokens, Principal } from "../results.ts";
import { hashToken, ACCESS_TOKEN_PREFIX, MAX_TOKEN_LENGTH } from "../bearer-tokens.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { requirePlatformAdmin, type Actor } from "../authorization/actor.ts";
import { accessJwtClaims, looksLikeJwt, SESSION_CLIENT_ID, signAccessJwt, verifyAccessJwt, ACR_OF_AAL } from "./access-jwt.ts";
import { keyScheduleAt, rotationActivation, signerAgeMs, type KeySchedule, type ScheduleTimes } from "./key-schedule.ts";
import { newSigningKey, openSigningKey, publishedJwk, type OpenedSigningKey } from "./key-material.ts";
import type { ResourceServer, SigningKeyRecord } from "../records/tokens.ts";
import { requireAudience } from "./audience.ts";
import { takeAudienceToSign } from "./audience-to-sign.ts";

/** A replica rereads the stored keys this often: a rotation activates a lead time later, far longer than this. */
const KEYRING_CACHE_MS = 30_000;
/** Longer than any JWT Gatehouse signs (their claims are a few hundred bytes); longer ones are not looked at. */
const MAX_JWT_LENGTH = 4096;
const MAX_NAME_LENGTH = 100;
const CLIENT_ID_PREFIX = "gh_rs_";
const CLIENT_SECRET_PREFIX = "gh_rss_";
/** Hashed when no client has the presented id, so an unknown id costs what a known one does. */
const NO_CLIENT_HASH = hashToken("gatehouse: no such resource server");

/** RFC 7662's answer: `{ active: false }` and nothing else, or the token's claims. */
export type IntrospectionResult = { readonly active: false } | ({ readonly active: true; readonly token_type: "Bearer" } & Readonly<Record<string, unknown>>);

export interface ResourceServerCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who is calling (the client IP): introspection's own limit is counted per key. */
  readonly clientKey: string;
}

export interface IssuedAccessJwt {
  readonly accessJwt: string;
  readonly expiresAt: EpochMs;
}

export interface RotatedKey {
  readonly kid: string;
  readonly activatesAt: EpochMs;
  /** The key that signs until then and stays published until its last token has expired; null when there was none. */
  readonly retiringKid: string | null;
}

/** A stored key and where it stands at the time asked (tokens/key-schedule.ts). */
export interface SigningKeyView {
  readonly kid: string;
  readonly createdAt: EpochMs;
  readonly activatesAt: EpochMs;
  /** `pending`: published, not signing yet; `signing`; `retiring`: replaced, published until its tokens expired; `retired`: no longer published. */
  readonly state: "pending" | "signing" | "retiring" | "retired";
}

export interface CreatedResourceServer {
  readonly clientId: string;
  /** Shown once: only its hash is stored. */
  readonly clientSecret: string;
}

export interface TokensApi {
  /** The issuer of every JWT and of the RFC 8414 metadata: `publicUrl` without a trailing slash. */
  readonly issuer: string;
  /** How long a verifier may cache the key set: the JWKS's `Cache-Control: max-age`. */
  readonly jwksMaxAgeSeconds: number;
  /** Creates the first signing key when none is stored (the server's start); the key signs at once. */
  ensureSigningKey(): Promise<void>;
  /** Adds a key that is published now and signs from `activatesAt` (the operator's `gatehouse keys rotate`; platform admins). */
  rotateSigningKey(actor: Actor): Promise<RotatedKey>;
  /** The public keys a verifier must know now (the JWKS), the signer's first. */
  publicJwks(): Promise<{ keys: JWK[] }>;
  /** The same keys with their private parts, the signer's first: for an OpenID Provider library sharing them. */
  privateJwks(): Promise<{ keys: JWK[] }>;
  /** Every stored key, oldest activation first, with its state now (the operator's `gatehouse keys list`; platform admins). */
  listSigningKeys(actor: Actor): Promise<SigningKeyView[]>;
  /** How long the signing key has signed, in milliseconds; null when none signs. */
  signingKeyAgeMs(): Promise<number | null>;
  /** An access JWT for the principal's session, for a registered resource server's `audience`. */
  issueAccessJwt(principal: Principal, audience: string): Promise<IssuedAccessJwt>;
  /**
   * The tokens a sign-in or refresh issued, with an access JWT for the org's `accessJwtAudience` when the sign-in
   * found one (tokens/audience-to-sign.ts; its registration was checked when it was set), and without that mark.
   */
  withAccessJwt(tokens: IssuedTokens): Promise<IssuedTokens>;
  /** Registers a resource server (platform admins and the operator); the secret is in the answer only. */
  createResourceServer(actor: Actor, name: string, audience: string): Promise<CreatedResourceServer>;
  listResourceServers(): Promise<ResourceServer[]>;
  /** RFC 7662 for a resource server: throws `unauthenticated` for wrong credentials, `rate_limited` past its limit. */
  introspect(credentials: ResourceServerCredentials, token: string): Promise<IntrospectionResult>;
}

interface Keyring {
  readonly readAt: EpochMs;
  readonly records: readonly SigningKeyRecord[];
  readonly opened: ReadonlyMap<string, OpenedSigningKey>;
  /** Every stored key that opened, for verifying; whether its kid is still published is checked apart. */
  readonly verifierKeys: JWTVerifyGetKey;
}

export function createTokensApi(ctx: Context): TokensApi {
  const issuer = ctx.config.publicUrl.replace(/\/+$/, "");
  const times: ScheduleTimes = { tokenTtlMs: ctx.config.accessJwtTtlMs, clockSkewMs: ctx.config.jwtClockSkewMs };
  let keyring: Keyring | null = null;

  async function currentKeyring(now: EpochMs): Promise<Keyring> {
    if (keyring !== null && now - keyring.readAt < KEYRING_CACHE_MS && now >= keyring.readAt) return keyring;
    const records = await ctx.stores.signingKeys.list();
    const opened = new Map<string, OpenedSigningKey>();
    for (const record of records) {
      const key = keyring?.opened.get(record.kid) ?? openSigningKey(record, ctx.secretBox);
      if (key !== null) opened.set(record.kid, key);
    }
    const verifierKeys = createLocalJWKSet({ keys: [...opened.values()].map((key) => publishedJwk(key.record)) });
    keyring = { readAt: now, records, opened, verifierKeys };
    return keyring;
  }

  /** The session's JWT for `audience`, whose registration the caller checked. */
  async function signFor(session: Session, audience: string, now: EpochMs): Promise<AccessJwtForTokens> {
    const { signer } = await publishedKeys(now);
    if (signer === null) throw new GatehouseError("storage_unavailable", "no signing key is active");
    const claims = accessJwtClaims({ issuer, audience, clientId: SESSION_CLIENT_ID, session, jti: newId(ctx.random), now, ttlMs: ctx.config.accessJwtTtlMs });
    return { token: await signAccessJwt(claims, signer), audience, expiresAt: claims.exp * 1000 };
  }

  function forgetKeyring(): void {
    keyring = null;
  }

  async function schedule(now: EpochMs): Promise<{ ring: Keyring; schedule: KeySchedule }> {
    const ring = await currentKeyring(now);
    return { ring, schedule: keyScheduleAt(ring.records, now, times) };
  }

  async function addKey(actor: Actor, activatesAt: EpochMs, reason: "first_start" | "rotation"): Promise<SigningKeyRecord> {
    const now = ctx.clock.now();
    const record = await newSigningKey(ctx.random, ctx.secretBox, now, activatesAt);
    await inTransaction(ctx, async (tx) => {
      await tx.stores.signingKeys.create(record);
      await recordAudit(tx, "signing_key.created", { actor: auditActor(actor) }, { kid: record.kid, activatesAt, reason });
    });
    forgetKeyring();
    return record;
  }

  async function publishedKeys(now: EpochMs): Promise<{ signer: OpenedSigningKey | null; published: OpenedSigningKey[] }> {
    const { ring, schedule: current } = await schedule(now);
    const published = current.published.flatMap((record) => {
      const opened = ring.opened.get(record.kid);
      return opened === undefined ? [] : [opened];
    });
    const signer = current.signer === null ? null : (ring.opened.get(current.signer.kid) ?? null);
    return { signer, published };
  }

  async function checkClient(credentials: ResourceServerCredentials): Promise<ResourceServer> {
    const now = ctx.clock.now();
    const { limit, windowMs } = ctx.config.introspectionsPerIp;
    const decision = await ctx.stores.rateLimiter.consume(`introspect:${hashToken(credentials.clientKey)}:${windowMs}`, limit, windowMs, now);
    if (!decision.allowed) throw rateLimited((decision.retryAt - now) / 1000);
    const client =
      credentials.clientId.startsWith(CLIENT_ID_PREFIX) && credentials.clientId.length <= MAX_TOKEN_LENGTH
        ? await ctx.stores.resourceServers.findByClientId(credentials.clientId)
        : null;
    const presented = Buffer.from(hashToken(credentials.clientSecret.slice(0, MAX_TOKEN_LENGTH)), "hex");
    const expected = Buffer.from(client?.secretHash ?? NO_CLIENT_HASH, "hex");
    const matches = expected.length === presented.length && timingSafeEqual(expected, presented);
    if (client === null || !matches) throw new GatehouseError("unauthenticated", "invalid client credentials");
    return client;
  }

  async function introspectOpaque(token: string, now: EpochMs): Promise<IntrospectionResult> {
    if (token.length > MAX_TOKEN_LENGTH) return INACTIVE;
    const session = await ctx.stores.sessions.findActiveByAccessTokenHash(hashToken(token), now);
    if (session === null) return INACTIVE;
    return {
      active: true,
      token_type: "Bearer",
      iss: issuer,
      sub: session.userId,
      exp: Math.floor(session.accessExpiresAt / 1000),
      client_id: SESSION_CLIENT_ID,
      sid: session.id,
      org_id: session.orgId,
      acr: ACR_OF_AAL[session.aal],
      amr: [...session.amr],
      auth_time: Math.floor(Math.max(session.createdAt, session.mfaAt ?? 0) / 1000),
    };
  }

  async function introspectJwt(token: string, client: ResourceServer, now: EpochMs): Promise<IntrospectionResult> {
    const { ring, schedule: current } = await schedule(now);
    const verified = await verifyAccessJwt(token, { issuer, keys: ring.verifierKeys, now, clockSkewMs: 0 });
    if (verified === null || !current.published.some((record) => record.kid === verified.kid)) return INACTIVE;
    const { claims } = verified;
    if (claims.aud !== client.audience) return INACTIVE;
    const sessions = await ctx.stores.sessions.listActiveByUser(claims.org_id, claims.sub, now);
    if (!sessions.some((session) => session.id === claims.sid)) return INACTIVE;
    return { active: true, token_type: "Bearer", ...claims, amr: [...claims.amr] };
  }

  return {
    issuer,
    jwksMaxAgeSeconds: Math.floor(ctx.config.jwksMaxAgeMs / 1000),

    async ensureSigningKey() {
      if ((await ctx.stores.signingKeys.list()).length === 0) await addKey({ kind: "system" }, ctx.clock.now(), "first_start");
      const { signer, published } = await publishedKeys(ctx.clock.now());
      const stored = keyScheduleAt((await currentKeyring(ctx.clock.now())).records, ctx.clock.now(), times).published.length;
      if (signer === null || published.length < stored) throw new Error("a stored signing key does not open under the factor encryption key");
    },

    async rotateSigningKey(actor) {
      await requirePlatformAdmin(ctx, actor);
      const now = ctx.clock.now();
      const { schedule: before } = await schedule(now);
      const record = await addKey(actor, rotationActivation(now, { ...times, jwksMaxAgeMs: ctx.config.jwksMaxAgeMs }), "rotation");
      const retiring = before.pending.at(-1) ?? before.signer;
      return { kid: record.kid, activatesAt: record.activatesAt, retiringKid: retiring?.kid ?? null };
    },

    async publicJwks() {
      const { signer, published } = await publishedKeys(ctx.clock.now());
      return { keys: signerFirst(published, signer).map((key) => publishedJwk(key.record)) };
    },

    async privateJwks() {
      const { signer, published } = await publishedKeys(ctx.clock.now());
      return { keys: signerFirst(published, signer).map((key) => ({ ...key.privateJwk })) };
    },

    async listSigningKeys(actor) {
      await requirePlatformAdmin(ctx, actor);
      const now = ctx.clock.now();
      const records = await ctx.stores.signingKeys.list();
      const current = keyScheduleAt(records, now, times);
      const published = new Set(current.published.map((record) => record.kid));
      const pending = new Set(current.pending.map((record) => record.kid));
      return records.map(({ kid, createdAt, activatesAt }) => ({
        kid,
        createdAt,
        activatesAt,
        state: kid === current.signer?.kid ? "signing" : pending.has(kid) ? "pending" : published.has(kid) ? "retiring" : "retired",
      }));
    },

    async signingKeyAgeMs() {
      const now = ctx.clock.now();
      return signerAgeMs((await schedule(now)).schedule, now);
    },

    async issueAccessJwt(principal, audience) {
      requireAudience(audience);
      const now = ctx.clock.now();
      if (!(await ctx.stores.resourceServers.hasAudience(audience))) {
        throw invalidArgument("audience", "is not the audience of a registered resource server");
      }
      const sessions = await ctx.stores.sessions.listActiveByUser(principal.orgId, principal.userId, now);
      const session = sessions.find((candidate) => candidate.id === principal.sessionId);
      if (session === undefined) throw new GatehouseError("unauthenticated");
      const signed = await signFor(session, audience, now);
      return { accessJwt: signed.token, expiresAt: signed.expiresAt };
    },

    async withAccessJwt(issued) {
      const { audience, tokens } = takeAudienceToSign(issued);
      if (audience === "") return tokens;
      const now = ctx.clock.now();
      const session = await ctx.stores.sessions.findActiveByAccessTokenHash(hashToken(tokens.accessToken), now);
      if (session === null) return tokens;
      return { ...tokens, accessJwt: await signFor(session, audience, now) };
    },

    async createResourceServer(actor, name, audience) {
      await requirePlatformAdmin(ctx, actor);
      const trimmed = name.trim();
      if (trimmed === "" || trimmed.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(trimmed)) {
        throw invalidArgument("name", `must be 1 to ${MAX_NAME_LENGTH} printable characters`);
      }
      requireAudience(audience);
      const clientId = CLIENT_ID_PREFIX + Buffer.from(ctx.random.bytes(16)).toString("base64url");
      const clientSecret = CLIENT_SECRET_PREFIX + Buffer.from(ctx.random.bytes(32)).toString("base64url");
      await inTransaction(ctx, async (tx) => {
        await tx.stores.resourceServers.create({ clientId, name: trimmed, audience, secretHash: hashToken(clientSecret), createdAt: tx.clock.now() });
        await recordAudit(tx, "resource_server.created", { actor: auditActor(actor) }, { clientId, name: trimmed, audience });
      });
      return { clientId, clientSecret };
    },

    listResourceServers: () => ctx.stores.resourceServers.list(),

    async introspect(credentials, token) {
      const client = await checkClient(credentials);
      const now = ctx.clock.now();
      if (token.startsWith(ACCESS_TOKEN_PREFIX)) return introspectOpaque(token, now);
      if (looksLikeJwt(token, MAX_JWT_LENGTH)) return introspectJwt(token, client, now);
      return INACTIVE;
    },
  };
}

const INACTIVE: IntrospectionResult = Object.freeze({ active: false });

function signerFirst(keys: readonly OpenedSigningKey[], signer: OpenedSigningKey | null): OpenedSigningKey[] {
  if (signer === null) return [...keys];
  return [signer, ...keys.filter((key) => key !== signer)];
}

function auditActor(actor: Actor): { readonly kind: "system" } | { readonly kind: "user"; readonly userId: string } {
  return actor.kind === "system" ? { kind: "system" } : { kind: "user", userId: actor.userId };
}
