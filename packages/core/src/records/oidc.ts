import type { EpochMs } from "../model.ts";

/**
 * One object an OpenID Provider library keeps (a grant, an authorization code, a session, a refresh token,
 * an interaction, a client...): `oidc-provider`'s adapter contract, one table keyed by (model, id), its
 * payload opaque JSON. The lookups it needs beside the key are columns of their own.
 */
export interface OidcRecord {
  /** The library's model name: `Client`, `Grant`, `AuthorizationCode`, `RefreshToken`, `Session`, `Interaction`... */
  readonly model: string;
  readonly id: string;
  /** The library's payload as JSON, stored as given. */
  readonly payload: string;
  /** Every token of one grant carries it: a reused code or a revoked grant revokes them all at once. */
  readonly grantId: string | null;
  /** A session's uid. */
  readonly uid: string | null;
  /** A device code's user code. */
  readonly userCode: string | null;
  /** Null: kept until destroyed (clients). */
  readonly expiresAt: EpochMs | null;
  /** When it was consumed (a code exchanged, a refresh token rotated); null while it was not. */
  readonly consumedAt: EpochMs | null;
}

/** What Gatehouse keeps in a client's metadata beside the standard fields (`oidc-provider`'s `extraClientMetadata`). */
export const GATEHOUSE_CLIENT_FIELDS = ["org_id", "first_party"] as const;

/** A registered relying party as `oidc-provider` reads it (the `Client` model's payload). */
export interface OidcClientMetadata {
  readonly client_id: string;
  readonly client_name: string;
  /** SHA-256 (hex) of the secret for a confidential client: the secret itself is shown once and never stored. */
  readonly client_secret?: string;
  readonly redirect_uris: readonly string[];
  readonly backchannel_logout_uri?: string;
  readonly post_logout_redirect_uris?: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly token_endpoint_auth_method: "client_secret_basic" | "none";
  readonly id_token_signed_response_alg: "EdDSA";
  /** Absent: `public`, the user id. */
  readonly subject_type?: "pairwise";
  readonly org_id: string;
  readonly first_party: boolean;
  /** Epoch seconds. */
  readonly client_id_issued_at: number;
}
