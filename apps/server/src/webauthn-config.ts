/**
 * The WebAuthn relying party, read from the environment with every problem collected (config.ts reports
 * them together):
 *
 *   WEBAUTHN_RP_ID     the registrable domain passkeys are bound to (default `localhost`; never an IP address)
 *   WEBAUTHN_RP_NAME   what the authenticator shows (default `Gatehouse`)
 *   WEBAUTHN_ORIGINS   comma-separated origins a ceremony may come from (default `http://localhost:<PORT>`),
 *                      each the RP id or a subdomain of it, https unless the host is localhost
 *
 * A passkey registered under one RP id does not work under another: changing WEBAUTHN_RP_ID strands them.
 */
import type { WebAuthnRelyingParty } from "@gatehouse/core";

type Text = (name: string) => string | undefined;

const MAX_RP_NAME_LENGTH = 64;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const IPV6 = /^\[?[0-9a-f]*:[0-9a-f:.]*\]?$/;

const isLocalhost = (host: string) => host === "localhost" || host.endsWith(".localhost");
const within = (host: string, rpId: string) => host === rpId || host.endsWith(`.${rpId}`);

export function readWebAuthnConfig(text: Text, problems: string[], context: { port: number }): WebAuthnRelyingParty {
  const rpId = (text("WEBAUTHN_RP_ID") ?? "localhost").toLowerCase();
  if (IPV4.test(rpId) || IPV6.test(rpId)) {
    problems.push(`WEBAUTHN_RP_ID must be a domain name, not an IP address (browsers refuse passkeys for ${rpId}; use localhost locally)`);
  } else if (!HOSTNAME.test(rpId)) {
    problems.push("WEBAUTHN_RP_ID must be a domain name such as example.com (no scheme, port or path)");
  }

  const rpName = text("WEBAUTHN_RP_NAME") ?? "Gatehouse";
  if (rpName.length > MAX_RP_NAME_LENGTH || /\p{Cc}/u.test(rpName)) {
    problems.push(`WEBAUTHN_RP_NAME must be at most ${MAX_RP_NAME_LENGTH} printable characters`);
  }

  const originsText = text("WEBAUTHN_ORIGINS") ?? `http://localhost:${context.port}`;
  const origins = originsText
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  if (origins.length === 0) problems.push("WEBAUTHN_ORIGINS must list at least one origin");
  for (const origin of origins) {
    const url = URL.parse(origin);
    if (url === null || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== origin) {
      problems.push(`WEBAUTHN_ORIGINS: ${JSON.stringify(origin)} must be an origin such as https://login.example.com (scheme, host and port only)`);
    } else if (!within(url.hostname, rpId)) {
      problems.push(`WEBAUTHN_ORIGINS: ${origin} is not ${rpId} or a subdomain of it (WEBAUTHN_RP_ID)`);
    } else if (url.protocol === "http:" && !isLocalhost(url.hostname)) {
      problems.push(`WEBAUTHN_ORIGINS: ${origin} must be https (browsers offer passkeys over http only on localhost)`);
    }
  }
  return { rpId, rpName, origins };
}
