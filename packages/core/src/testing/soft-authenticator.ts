/**
 * An authenticator in software, for tests and the bench: a P-256 key made with node:crypto, and the
 * registration ("none" attestation) and assertion responses a browser would hand over, built byte by byte
 * as WebAuthn §6.1 lays them out. Each response can be bent (another origin, another RP id, no user
 * verification, a chosen counter) to prove what the server refuses.
 */
import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;
const COSE_KTY_EC2 = 2;
const COSE_ALG_ES256 = -7;
const COSE_CRV_P256 = 1;

export interface CeremonyBending {
  /** Defaults to the authenticator's origin. */
  readonly origin?: string;
  /** The RP id whose hash the authenticator data carries; defaults to the options' (or the authenticator's). */
  readonly rpId?: string;
  /** Defaults to true: the user was verified (PIN or biometric). */
  readonly userVerified?: boolean;
  /** The signature counter to report; defaults to one more than the last one reported. */
  readonly counter?: number;
  /** Sign another challenge than the options' (base64url). */
  readonly challenge?: string;
}

export interface SoftAuthenticatorOptions {
  readonly origin: string;
  readonly rpId?: string;
  /** Reports 0 on every assertion (authenticators that keep no counter). */
  readonly noCounter?: boolean;
  /** A synced passkey: backup eligible and backed up. */
  readonly synced?: boolean;
}

interface OptionsJson {
  readonly challenge: string;
  readonly rp?: { readonly id?: string };
  readonly rpId?: string;
  readonly user?: { readonly id: string };
}

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};

export class SoftAuthenticator {
  readonly credentialId: string;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  private userHandle = "";
  private readonly options: SoftAuthenticatorOptions;
  /** The last counter reported. */
  counter = 0;

  constructor(options: SoftAuthenticatorOptions) {
    this.options = options;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.publicJwk = { x: jwk.x ?? "", y: jwk.y ?? "" };
    this.credentialId = b64url(randomBytes(16));
  }

  /** The `RegistrationResponseJSON` (as text) answering `PublicKeyCredentialCreationOptionsJSON`. */
  register(optionsJson: string, bend: CeremonyBending = {}): string {
    const options = JSON.parse(optionsJson) as OptionsJson;
    this.userHandle = options.user?.id ?? "";
    const rpId = bend.rpId ?? options.rp?.id ?? this.options.rpId ?? "localhost";
    const cose = new Map<number, number | Uint8Array>([
      [1, COSE_KTY_EC2],
      [3, COSE_ALG_ES256],
      [-1, COSE_CRV_P256],
      [-2, new Uint8Array(Buffer.from(this.publicJwk.x, "base64url"))],
      [-3, new Uint8Array(Buffer.from(this.publicJwk.y, "base64url"))],
    ]);
    const credentialId = Buffer.from(this.credentialId, "base64url");
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, Buffer.from(isoCBOR.encode(cose))]);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(bend) | FLAG_AT]), uint32(0), attested]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]) as never,
    );
    const clientData = this.clientData("webauthn.create", bend.challenge ?? options.challenge, bend);
    return JSON.stringify({
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key",
      response: { clientDataJSON: b64url(clientData), attestationObject: b64url(attestationObject), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    });
  }

  /** The `AuthenticationResponseJSON` (as text) answering `PublicKeyCredentialRequestOptionsJSON`. */
  authenticate(optionsJson: string, bend: CeremonyBending = {}): string {
    const options = JSON.parse(optionsJson) as OptionsJson;
    const rpId = bend.rpId ?? options.rpId ?? this.options.rpId ?? "localhost";
    const counter = bend.counter ?? (this.options.noCounter === true ? 0 : this.counter + 1);
    this.counter = Math.max(this.counter, counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(bend)]), uint32(counter)]);
    const clientData = this.clientData("webauthn.get", bend.challenge ?? options.challenge, bend);
    const signature = createSign("sha256")
      .update(Buffer.concat([authData, sha256(clientData)]))
      .sign(this.privateKey);
    return JSON.stringify({
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key",
      response: { clientDataJSON: b64url(clientData), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    });
  }

  private flags(bend: CeremonyBending): number {
    const synced = this.options.synced === true ? FLAG_BE | FLAG_BS : 0;
    return FLAG_UP | (bend.userVerified === false ? 0 : FLAG_UV) | synced;
  }

  private clientData(type: string, challenge: string, bend: CeremonyBending): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: bend.origin ?? this.options.origin, crossOrigin: false }), "utf8");
  }
}
