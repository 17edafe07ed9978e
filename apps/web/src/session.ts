import type { TokensView } from "@gatehouse/contract";

/** The signed-in session as kept in sessionStorage. */
export interface Session {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Access-token expiry, ISO 8601. */
  readonly expiresAt: string;
  readonly userId: string;
  readonly orgId: string;
}

/** The session to store for the tokens a sign-in or a refresh issued. */
export function sessionFromTokens(tokens: TokensView): Session {
  const { accessToken, refreshToken, userId, orgId } = tokens;
  return { accessToken, refreshToken, expiresAt: new Date(tokens.expiresAt).toISOString(), userId, orgId };
}

/** The part of the Web Storage API the app uses, so tests can pass a Map-backed fake. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SessionStore {
  /** The stored session, or null when signed out or the stored value is unreadable. Stable between changes. */
  get(): Session | null;
  set(session: Session): void;
  clear(): void;
  /** Calls `listener` after every set/clear; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export const SESSION_STORAGE_KEY = "gatehouse.session";

function isSession(value: unknown): value is Session {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.accessToken === "string" &&
    record.accessToken !== "" &&
    typeof record.refreshToken === "string" &&
    typeof record.expiresAt === "string" &&
    typeof record.userId === "string" &&
    typeof record.orgId === "string" &&
    record.orgId !== ""
  );
}

function parseSession(raw: string | null): Session | null {
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return isSession(value) ? value : null;
  } catch {
    return null;
  }
}

/** A session store over `storage` (sessionStorage in the browser: the session ends with the tab). */
export function createSessionStore(storage: StorageLike): SessionStore {
  const listeners = new Set<() => void>();
  let cachedRaw: string | null = null;
  let cached: Session | null = null;

  const read = (): string | null => {
    try {
      return storage.getItem(SESSION_STORAGE_KEY);
    } catch {
      return null;
    }
  };
  const notify = (): void => {
    for (const listener of listeners) listener();
  };

  return {
    get() {
      const raw = read();
      if (raw !== cachedRaw) {
        cachedRaw = raw;
        cached = parseSession(raw);
      }
      return cached;
    },
    set(session) {
      const { accessToken, refreshToken, expiresAt, userId, orgId } = session;
      storage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ accessToken, refreshToken, expiresAt, userId, orgId }));
      notify();
    },
    clear() {
      try {
        storage.removeItem(SESSION_STORAGE_KEY);
      } finally {
        notify();
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
