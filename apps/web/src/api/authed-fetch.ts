import type { AuthOutcomeView } from "@gatehouse/contract";
import { sessionFromTokens, type Session, type SessionStore } from "../session.ts";

/** Request options the wrapper supports; the body is a string so it can be sent twice. */
export interface AuthedRequest {
  readonly method?: "GET" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

export interface AuthedFetchDeps {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly sessions: SessionStore;
  /** Calls AuthService.Refresh with the refresh token (and this browser's fingerprint). May throw; anything but tokens ends the session. */
  readonly refresh: (refreshToken: string) => Promise<AuthOutcomeView>;
  /** Called once the stored session has been cleared, with "/login". */
  readonly navigate: (path: string) => void;
}

/** Thrown by the wrapper after it has cleared the session and navigated to /login. Callers just stop. */
export class SessionEndedError extends Error {
  constructor() {
    super("The session has ended; sign in again.");
    this.name = "SessionEndedError";
  }
}

export type AuthedFetch = (url: string, request?: AuthedRequest) => Promise<Response>;

/**
 * fetch with `Authorization: Bearer <access token>`. On a 401 it refreshes once (one Refresh
 * shared by all requests that fail together, since refresh tokens are single use) and retries the
 * request once with the new token. A second 401, a failed refresh, or a refresh that asks for MFA
 * clears the stored session, navigates to /login and throws SessionEndedError. Any other status
 * is returned to the caller as is.
 */
export function createAuthedFetch(deps: AuthedFetchDeps): AuthedFetch {
  const { sessions } = deps;
  let refreshing: Promise<Session | null> | null = null;

  const endSession = (): never => {
    sessions.clear();
    deps.navigate("/login");
    throw new SessionEndedError();
  };

  const send = (url: string, request: AuthedRequest, accessToken: string): Promise<Response> => {
    const init: RequestInit = {
      method: request.method ?? "GET",
      headers: { ...request.headers, authorization: `Bearer ${accessToken}` },
    };
    if (request.body !== undefined) init.body = request.body;
    if (request.signal !== undefined) init.signal = request.signal;
    return deps.fetch(url, init);
  };

  const refreshOnce = async (refreshToken: string): Promise<Session | null> => {
    try {
      const outcome = await deps.refresh(refreshToken);
      if (outcome.kind !== "tokens") return null;
      const session = sessionFromTokens(outcome.tokens);
      sessions.set(session);
      return session;
    } catch {
      return null;
    }
  };

  /** A session to retry with: one another request already refreshed to, or a fresh one. */
  const renew = (rejected: Session): Promise<Session | null> => {
    const current = sessions.get();
    if (current === null) return Promise.resolve(null);
    if (current.accessToken !== rejected.accessToken) return Promise.resolve(current);
    refreshing ??= refreshOnce(current.refreshToken).finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return async (url, request = {}) => {
    const session = sessions.get();
    if (session === null) return endSession();
    const first = await send(url, request, session.accessToken);
    if (first.status !== 401) return first;

    const renewed = await renew(session);
    if (renewed === null) return endSession();
    const second = await send(url, request, renewed.accessToken);
    if (second.status === 401) return endSession();
    return second;
  };
}
