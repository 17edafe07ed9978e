/**
 * Ed25519 key pairs for access JWTs. The private key is drawn from the injected random source (a PKCS#8
 * seed), so tests decide it; it is kept only as a JWK sealed under the factor key, bound to its kid, so a
 * copy of the database alone signs nothing and a sealed key moved onto another row does not open.
 */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, type JWK } from "jose";
import type { SecretBox } from "../context.ts";
import type { EpochMs } from "../model.ts";
import type { RandomSource } from "../ports.ts";
import { SIGNING_ALG, type SigningKeyRecord } from "../records/tokens.ts";

/** RFC 8410's PKCS#8 header of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SEED_BYTES = 32;

/** A stored key opened for use: what signs, and what is published. */
export interface OpenedSigningKey {
  readonly record: SigningKeyRecord;
  readonly privateKey: KeyObject;
  /** The private JWK with kid, alg and use: what an OpenID Provider library is given (issue 48's oidc-provider). */
  readonly privateJwk: JWK;
}

function boundTo(kid: string): string {
  return `signing-key:${kid}`;
}

/** A public JWK as a key set publishes it. */
export function publishedJwk(record: SigningKeyRecord): JWK {
  return { ...(JSON.parse(record.publicJwk) as JWK), kid: record.kid, alg: record.alg, use: "sig" };
}

export async function newSigningKey(random: RandomSource, box: SecretBox, createdAt: EpochMs, activatesAt: EpochMs): Promise<SigningKeyRecord> {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, random.bytes(SEED_BYTES)]), format: "der", type: "pkcs8" });
  const { kty, crv, x, d } = privateKey.export({ format: "jwk" });
  const publicJwk = { kty, crv, x };
  const kid = await calculateJwkThumbprint(publicJwk as JWK, "sha256");
  return {
    kid,
    alg: SIGNING_ALG,
    publicJwk: JSON.stringify(publicJwk),
    sealedPrivateJwk: box.seal(JSON.stringify({ kty, crv, x, d }), boundTo(kid)),
    createdAt,
    activatesAt,
  };
}

/** Null when the sealed key does not open (another factor key, or altered) or is not the stored public key's. */
export function openSigningKey(record: SigningKeyRecord, box: SecretBox): OpenedSigningKey | null {
  const opened = box.open(record.sealedPrivateJwk, boundTo(record.kid));
  if (opened === null) return null;
  const jwk = JSON.parse(opened) as JWK;
  const privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  const derived = createPublicKey(privateKey).export({ format: "jwk" });
  if (derived.x !== (JSON.parse(record.publicJwk) as JWK).x) return null;
  return { record, privateKey, privateJwk: { ...jwk, kid: record.kid, alg: record.alg, use: "sig" } };
}
