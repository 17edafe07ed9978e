import type { EpochMs } from "../model.ts";

/** The one algorithm Gatehouse signs with: Ed25519 (RFC 8037), small keys and signatures, no nonce to get wrong. */
export const SIGNING_ALG = "EdDSA";

/**
 * A key that signs access JWTs. Keys are only ever added: when a key signs and when it stops publishing
 * follow from `activatesAt` and the next key's (key-schedule.ts), so no replica ever updates one.
 */
export interface SigningKeyRecord {
  /** The RFC 7638 thumbprint of the public key. */
  readonly kid: string;
  readonly alg: typeof SIGNING_ALG;
  /** The public JWK (kty, crv, x) as JSON, without kid, alg or use. */
  readonly publicJwk: string;
  /** The private JWK as JSON, sealed under the factor key bound to `kid` (factors/secret-box.ts). */
  readonly sealedPrivateJwk: string;
  readonly createdAt: EpochMs;
  /** From when it signs; until then it is published only, so every verifier has it before its first token. */
  readonly activatesAt: EpochMs;
}

/**
 * A service registered to receive Gatehouse tokens (an OAuth resource server): it introspects with
 * `clientId` and its secret over HTTP Basic, and access JWTs may be issued for its `audience`.
 */
export interface ResourceServer {
  readonly clientId: string;
  readonly name: string;
  /** An absolute URI (RFC 9068's `aud`). */
  readonly audience: string;
  /** SHA-256 (hex) of the client secret; the secret itself is shown once and never stored. */
  readonly secretHash: string;
  readonly createdAt: EpochMs;
}
