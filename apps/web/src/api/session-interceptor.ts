import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AuthOutcomeView } from "@gatehouse/contract";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { sessionFromTokens, type Session, type SessionStore } from "../session.ts";

/** AuthService methods a signed-out browser calls (sign-in, and the pages of emailed links): they carry no bearer token. */
const PUBLIC_AUTH_METHODS: ReadonlySet<string> = new Set([
  "Register",
  "VerifyEmail",
  "AcceptInvitation",
  "RequestPasswordReset",
  "ResetPassword",
  "DisownSignIn",
  "Login",
  "SubmitPhoneAndRequestMFA",
  "VerifyMFA",
  "ResendMFA",
  "SendMfaCode",
  "Refresh",
  "StartPasskeySignIn",
  "FinishPasskeySignIn",
]);

export interface SessionInterceptorDeps {
  readonly sessions: SessionStore;
  /** Calls AuthService.Refresh with the refresh token (and this browser's fingerprint). May throw; anything but tokens ends the session. */
  readonly refresh: (refreshToken: string) => Promise<AuthOutcomeView>;
  /** Called once the stored session has been cleared (the app navigates to /login). */
  readonly sessionEnded: () => void;
}

/** Why a call failed after the session ended: it was cleared and the app sent to /login, so callers just stop. */
export class SessionEndedError extends Error {
  constructor() {
    super("The session has ended; sign in again.");
    this.name = "SessionEndedError";
  }
}

/** True when a call failed because the session ended (the client wraps the interceptor's error in a ConnectError). */
export function isSessionEnded(error: unknown): boolean {
  return error instanceof SessionEndedError || (error instanceof ConnectError && error.cause instanceof SessionEndedError);
}

const isUnauthenticated = (error: unknown): boolean => error instanceof ConnectError && error.code === Code.Unauthenticated;

/**
 * The one interceptor of the web client's transport. Every call but the public AuthService methods
 * carries `Authorization: Bearer <access token>`. When one is answered Unauthenticated it refreshes
 * once (one Refresh shared by all calls that fail together, since refresh tokens are single use) and
 * retries the call once with the new token. A second Unauthenticated, a failed refresh, or a refresh
 * that asks for MFA clears the stored session, calls `sessionEnded` and fails the call with SessionEndedError (`isSessionEnded`). Every
 * other error reaches the caller as the ConnectError it is.
 */
export function sessionInterceptor(deps: SessionInterceptorDeps): Interceptor {
  const { sessions } = deps;
  let refreshing: Promise<Session | null> | null = null;

  const endSession = (): never => {
    sessions.clear();
    deps.sessionEnded();
    throw new SessionEndedError();
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

  /** A session to retry with: one another call already refreshed to, or a fresh one. */
  const renew = (rejected: Session): Promise<Session | null> => {
    const current = sessions.get();
    if (current === null) return Promise.resolve(null);
    if (current.accessToken !== rejected.accessToken) return Promise.resolve(current);
    refreshing ??= refreshOnce(current.refreshToken).finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return (next) => async (request) => {
    if (request.service.typeName === AuthService.typeName && PUBLIC_AUTH_METHODS.has(request.method.name)) return next(request);
    const session = sessions.get();
    if (session === null) return endSession();
    request.header.set("authorization", `Bearer ${session.accessToken}`);
    try {
      return await next(request);
    } catch (error) {
      if (!isUnauthenticated(error)) throw error;
    }
    const renewed = await renew(session);
    if (renewed === null) return endSession();
    request.header.set("authorization", `Bearer ${renewed.accessToken}`);
    try {
      return await next(request);
    } catch (error) {
      if (isUnauthenticated(error)) return endSession();
      throw error;
    }
  };
}
