/**
 * The browser's side of passkeys, through @simplewebauthn/browser: the server's options JSON in, the
 * credential JSON for the server out. A ceremony the browser ends (the user closed the prompt, it timed
 * out, no passkey for this site, the page is not on a domain) throws a `PasskeyCeremonyError` in words
 * for people; the server is never asked then.
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";

export class PasskeyCeremonyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PasskeyCeremonyError";
  }
}

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** The `AuthenticationResponseJSON`, as text, for request options the server made. */
export async function answerWithPasskey(optionsJson: string): Promise<string> {
  const optionsJSON = JSON.parse(optionsJson) as PublicKeyCredentialRequestOptionsJSON;
  return JSON.stringify(await ceremony(() => startAuthentication({ optionsJSON })));
}

/** The `RegistrationResponseJSON`, as text, for creation options the server made. */
export async function createPasskey(optionsJson: string): Promise<string> {
  const optionsJSON = JSON.parse(optionsJson) as PublicKeyCredentialCreationOptionsJSON;
  return JSON.stringify(await ceremony(() => startRegistration({ optionsJSON })));
}

async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  if (!passkeysSupported()) throw new PasskeyCeremonyError("This browser cannot use passkeys. Choose another way, or use a browser that can.");
  try {
    return await run();
  } catch (error) {
    throw new PasskeyCeremonyError(ceremonyMessage(error));
  }
}

function ceremonyMessage(error: unknown): string {
  if (error instanceof WebAuthnError) {
    switch (error.code) {
      case "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED":
        return "This passkey is already added to your account.";
      case "ERROR_INVALID_DOMAIN":
      case "ERROR_INVALID_RP_ID":
        return "Passkeys do not work on this address. Open the site by its name (like localhost), not by its IP address.";
      default:
        break;
    }
  }
  return "No passkey was used: the prompt was closed or timed out. Try again, or choose another way.";
}
