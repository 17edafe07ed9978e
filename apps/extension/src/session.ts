/**
 * The extension's own session (a device of its own on the server), kept in extension storage, never in a page.
 * Refreshed as the web client refreshes: AuthService.Refresh with the single-use refresh token, shortly before expiry.
 */
export interface ExtensionSession {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  readonly orgId: string;
}

const KEY = "session";
/** Refresh this long before the access token expires, so a poll never carries an expired token. */
const REFRESH_MARGIN_MS = 60_000;

export async function readSession(): Promise<ExtensionSession | null> {
  return sessionFrom((await chrome.storage.local.get(KEY))[KEY]);
}

export async function saveSession(session: ExtensionSession): Promise<void> {
  await chrome.storage.local.set({ [KEY]: session });
}

export async function forgetSession(): Promise<void> {
  await chrome.storage.local.remove(KEY);
}

export function sessionFrom(value: unknown): ExtensionSession | null {
  if (typeof value !== "object" || value === null) return null;
  const { accessToken, refreshToken, expiresAt, orgId } = value as Record<string, unknown>;
  if (typeof accessToken !== "string" || typeof refreshToken !== "string" || typeof orgId !== "string" || typeof expiresAt !== "number") return null;
  if (accessToken === "" || refreshToken === "" || orgId === "") return null;
  return { accessToken, refreshToken, expiresAt, orgId };
}

/** The `tokens` of an AuthResponse in Connect's JSON form, as a session; null for anything else. */
export function sessionFromTokens(tokens: unknown): ExtensionSession | null {
  if (typeof tokens !== "object" || tokens === null) return null;
  const { accessToken, refreshToken, expiresAt, orgId } = tokens as Record<string, unknown>;
  const expires = typeof expiresAt === "string" ? Date.parse(expiresAt) : Number.NaN;
  return sessionFrom({ accessToken, refreshToken, orgId, expiresAt: expires });
}

export type Refreshed = { readonly kind: "fresh"; readonly session: ExtensionSession } | { readonly kind: "signed_out" } | { readonly kind: "unreachable" };

/** The session, refreshed when it is about to expire. A refusal signs the extension out; a network failure does not. */
export async function freshSession(serverOrigin: string, session: ExtensionSession, now: number): Promise<Refreshed> {
  if (session.expiresAt - now > REFRESH_MARGIN_MS) return { kind: "fresh", session };
  return refreshSession(serverOrigin, session);
}

export async function refreshSession(serverOrigin: string, session: ExtensionSession): Promise<Refreshed> {
  let response: Response;
  try {
    response = await fetch(`${serverOrigin}/gatehouse.v1.AuthService/Refresh`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1" },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
      credentials: "omit",
    });
  } catch {
    return { kind: "unreachable" };
  }
  if (response.status >= 500 || response.status === 429) return { kind: "unreachable" };
  const body: unknown = await response.json().catch(() => null);
  const refreshed = response.ok ? sessionFromTokens((body as { tokens?: unknown } | null)?.tokens) : null;
  if (refreshed === null) {
    await forgetSession();
    return { kind: "signed_out" };
  }
  await saveSession(refreshed);
  return { kind: "fresh", session: refreshed };
}
