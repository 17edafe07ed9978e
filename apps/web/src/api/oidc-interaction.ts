/**
 * The OpenID Provider's interaction, from the web client: same-origin JSON on `/oidc/interaction/:uid`, where
 * the provider's interaction cookie (scoped to that path) ties it to the browser that started the flow. The
 * session travels as a bearer token (docs/oidc.md, "How the sign-in happens").
 */

const UID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface InteractionView {
  readonly clientName: string;
  readonly firstParty: boolean;
  readonly scopes: readonly string[];
  readonly org: { readonly id: string; readonly name: string; readonly slug: string | null };
}

export type InteractionAnswer =
  /** Back to the provider, which sends the browser on to the app. */
  | { readonly kind: "redirect"; readonly to: string }
  | { readonly kind: "consent_required"; readonly scopes: readonly string[] }
  | { readonly kind: "step_up_required" }
  | { readonly kind: "passkey_required" }
  | { readonly kind: "login_required" }
  | { readonly kind: "failed"; readonly message: string };

export interface InteractionDecision {
  readonly consent?: boolean;
  readonly deny?: boolean;
}

export interface OidcInteractionClient {
  /** Null when the interaction is unknown, expired or belongs to another browser. */
  details(uid: string): Promise<InteractionView | null>;
  finish(uid: string, accessToken: string, decision: InteractionDecision): Promise<InteractionAnswer>;
}

export function isInteractionUid(uid: string): boolean {
  return UID_PATTERN.test(uid);
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function viewOf(body: unknown): InteractionView | null {
  const record = asRecord(body);
  const org = asRecord(record.org);
  if (typeof record.client_name !== "string" || typeof record.first_party !== "boolean" || !isStringArray(record.scopes)) return null;
  if (typeof org.id !== "string" || typeof org.name !== "string" || (org.slug !== null && typeof org.slug !== "string")) return null;
  return { clientName: record.client_name, firstParty: record.first_party, scopes: record.scopes, org: { id: org.id, name: org.name, slug: org.slug } };
}

/** Only back to this site (the provider's resume endpoint): never a redirect elsewhere from a forged answer. */
function sameOrigin(location: unknown, origin: string): string | null {
  if (typeof location !== "string") return null;
  try {
    const url = new URL(location, origin);
    return url.origin === origin ? url.toString() : null;
  } catch {
    return null;
  }
}

function answerOf(body: unknown, origin: string): InteractionAnswer {
  const record = asRecord(body);
  const to = sameOrigin(record.redirect_to, origin);
  if (to !== null) return { kind: "redirect", to };
  switch (record.error) {
    case "consent_required":
      return { kind: "consent_required", scopes: isStringArray(record.scopes) ? record.scopes : [] };
    case "step_up_required":
    case "passkey_required":
    case "login_required":
      return { kind: record.error };
    default:
      return { kind: "failed", message: typeof record.error_description === "string" ? record.error_description : "The sign-in could not be finished." };
  }
}

export function createOidcInteractionClient(fetch: (url: string, init: RequestInit) => Promise<Response>, origin: string): OidcInteractionClient {
  const url = (uid: string): string => `/oidc/interaction/${encodeURIComponent(uid)}`;
  return {
    async details(uid) {
      if (!isInteractionUid(uid)) return null;
      const response = await fetch(url(uid), { headers: { accept: "application/json" }, credentials: "same-origin" });
      return response.ok ? viewOf(await response.json().catch(() => null)) : null;
    },
    async finish(uid, accessToken, decision) {
      const response = await fetch(url(uid), {
        method: "POST",
        credentials: "same-origin",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(decision),
      });
      return answerOf(await response.json().catch(() => null), origin);
    },
  };
}
