/**
 * The WebAuthn ceremonies, as `@simplewebauthn/server` computes them. Its option builders and verifiers are
 * pure computation (no network, no storage; randomness only where we pass none, and we always pass the
 * challenge and the user handle), so the core calls them directly, as it calls otpauth for TOTP
 * (docs/decisions/webauthn-in-core.md). What is ours: which challenge a ceremony must sign, which origins
 * and RP id count, when user verification is required, and the signature counter rule.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { WebAuthnRelyingParty } from "../../config.ts";
import { invalidArgument } from "../../errors.ts";
import type { User, WebAuthnFactor } from "../../model.ts";
import type { RandomSource } from "../../ports.ts";

const CHALLENGE_BYTES = 32;
/** A registration or assertion response is a few hundred bytes; anything far larger is not one. */
const MAX_RESPONSE_CHARS = 16_384;
/** How long the browser waits for the authenticator; the challenge's own expiry is the server's limit. */
const CEREMONY_TIMEOUT_MS = 120_000;
/**
 * EdDSA, ES256, RS256: the library's defaults without ML-DSA, which Node 24 marks experimental (probing it
 * prints a warning on every start); every passkey provider offers ES256.
 */
const ALGORITHMS = [-8, -7, -257];
const TRANSPORTS: readonly AuthenticatorTransport[] = ["ble", "hybrid", "internal", "nfc", "usb"];

export function newWebAuthnChallenge(random: RandomSource): string {
  return Buffer.from(random.bytes(CHALLENGE_BYTES)).toString("base64url");
}

const challengeBytes = (challenge: string) => new Uint8Array(Buffer.from(challenge, "base64url"));
const transportsOf = (factor: WebAuthnFactor) => factor.transports.filter((t): t is AuthenticatorTransport => (TRANSPORTS as readonly string[]).includes(t));
const descriptorOf = (factor: WebAuthnFactor) => ({ id: factor.credentialId, transports: transportsOf(factor) });

/**
 * `PublicKeyCredentialCreationOptionsJSON` for a new passkey of `user`: the user handle is the user id (no
 * personal data), the user's passkeys are excluded (one authenticator is not registered twice), a
 * discoverable credential and user verification are preferred (so it can sign in without a password), and
 * no attestation is asked (Gatehouse trusts no vendor list, and "none" reveals nothing about the device).
 */
export async function registrationOptionsJson(rp: WebAuthnRelyingParty, challenge: string, user: User, held: readonly WebAuthnFactor[]): Promise<string> {
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName: user.email,
    userDisplayName: user.displayName || user.email,
    userID: new Uint8Array(Buffer.from(user.id, "utf8")),
    challenge: challengeBytes(challenge),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: held.map(descriptorOf),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  return JSON.stringify(options);
}

/**
 * `PublicKeyCredentialRequestOptionsJSON`. As a second factor (`allowed` the user's passkeys) user
 * verification is preferred: the password was the other factor. For a sign-in without a password
 * (`allowed` undefined: any discoverable credential) it is required, since the passkey is both factors.
 */
export async function authenticationOptionsJson(rp: WebAuthnRelyingParty, challenge: string, allowed: readonly WebAuthnFactor[] | undefined): Promise<string> {
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge: challengeBytes(challenge),
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: allowed === undefined ? "required" : "preferred",
    ...(allowed === undefined ? {} : { allowCredentials: allowed.map(descriptorOf) }),
  });
  return JSON.stringify(options);
}

/** The fields every credential response has; the verifier checks the rest and refuses what is malformed. */
function requireCredentialJson(field: string, text: string): Record<string, unknown> {
  if (text.length === 0) throw invalidArgument(field, "is required");
  if (text.length > MAX_RESPONSE_CHARS) throw invalidArgument(field, `must be at most ${MAX_RESPONSE_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument(field, "must be a WebAuthn credential as JSON");
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !("id" in parsed) ||
    typeof parsed.id !== "string" ||
    !/^[A-Za-z0-9_-]{1,1366}$/.test(parsed.id) ||
    !("type" in parsed) ||
    parsed.type !== "public-key" ||
    !("response" in parsed) ||
    typeof parsed.response !== "object" ||
    parsed.response === null
  ) {
    throw invalidArgument(field, "must be a WebAuthn credential as JSON");
  }
  return parsed as Record<string, unknown>;
}

export function requireRegistrationResponse(field: string, text: string): RegistrationResponseJSON {
  return requireCredentialJson(field, text) as unknown as RegistrationResponseJSON;
}

export function requireAuthenticationResponse(field: string, text: string): AuthenticationResponseJSON {
  return requireCredentialJson(field, text) as unknown as AuthenticationResponseJSON;
}

export interface RegisteredCredential {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly aaguid: string;
  readonly backedUp: boolean;
}

/**
 * A registration response that signed `challenge` from one of the configured origins for the RP id, with the
 * user present; null for anything else (the verifier's reason is not told to the caller).
 */
export async function verifyRegistration(
  rp: WebAuthnRelyingParty,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<RegisteredCredential | null> {
  try {
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rpId,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!verified.verified) return null;
    const { credential, aaguid, credentialBackedUp } = verified.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: (response.response.transports ?? []).filter((t) => (TRANSPORTS as readonly string[]).includes(t)),
      aaguid,
      backedUp: credentialBackedUp,
    };
  } catch {
    return null;
  }
}

export interface VerifiedAssertion {
  readonly counter: number;
  readonly backedUp: boolean;
}

/**
 * An assertion by `factor` over `challenge`, from a configured origin for the RP id, with the user present
 * and, when `requireUserVerification`, verified (PIN or biometric); null otherwise. The counter is checked by
 * the caller (`counterMovedForward`), so that a regression can be told apart and recorded.
 */
export async function verifyAssertion(
  rp: WebAuthnRelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  factor: WebAuthnFactor,
  requireUserVerification: boolean,
): Promise<VerifiedAssertion | null> {
  if (response.id !== factor.credentialId) return null;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rpId,
      // The library's own counter check is bypassed (a stored 0) so the caller sees the received count.
      credential: { id: factor.credentialId, publicKey: new Uint8Array(Buffer.from(factor.publicKey, "base64url")), counter: 0 },
      requireUserVerification,
    });
    if (!verified.verified) return null;
    return { counter: verified.authenticationInfo.newCounter, backedUp: verified.authenticationInfo.credentialBackedUp };
  } catch {
    return null;
  }
}

/**
 * The signature counter rule (WebAuthn §6.1.1): a count must move past the stored one. Authenticators that
 * keep no counter report 0 every time, which is legitimate; a non-zero count that does not move forward (or a
 * 0 after a non-zero one) means two copies of one key are in use.
 */
export function counterMovedForward(stored: number, received: number): boolean {
  return received > stored || (stored === 0 && received === 0);
}
