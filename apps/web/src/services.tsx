import { createContext, useContext, useSyncExternalStore } from "react";
import { createConnectTransport } from "@connectrpc/connect-web";
import { createAccountClient } from "./api/account-client.ts";
import type { AccountClient } from "./api/account-client.ts";
import { createAuthClient } from "./api/auth-client.ts";
import type { AuthClient } from "./api/auth-client.ts";
import { createBrowserApi } from "./api/browser-api.ts";
import type { BrowserApi } from "./api/browser-api.ts";
import { sessionInterceptor } from "./api/session-interceptor.ts";
import { deviceFingerprint } from "./device-fingerprint.ts";
import { navigate } from "./router.tsx";
import { createSessionStore } from "./session.ts";
import type { Session, SessionStore, StorageLike } from "./session.ts";

/** Everything the pages talk to, built once in main.tsx. */
export interface AppServices {
  readonly sessions: SessionStore;
  readonly auth: AuthClient;
  readonly browser: BrowserApi;
  readonly account: AccountClient;
  /** Plain fetch for the dev OTP helper's route (`GET /api/dev/mfa/otp`, public, dev mode only). */
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** The organization (short name, as typed) of the last sign-in on this browser, to prefill the form (not a secret). */
  readonly lastOrg: { get(): string; set(org: string): void };
}

const LAST_ORG_KEY = "gatehouse.lastOrg";

function storageOrNull(get: () => Storage): StorageLike | null {
  try {
    return get();
  } catch {
    return null;
  }
}

/** In-memory storage for browsers that block Web Storage: the session then lasts for the page only. */
function memoryStorage(): StorageLike {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

export function createAppServices(win: Window): AppServices {
  const sessions = createSessionStore(storageOrNull(() => win.sessionStorage) ?? memoryStorage());
  let fingerprint: string | null = null;
  const getFingerprint = (): string =>
    (fingerprint ??= deviceFingerprint(
      storageOrNull(() => win.localStorage),
      win.crypto,
      storageOrNull(() => win.sessionStorage),
    ));
  const fetchImpl = (url: string, init: RequestInit): Promise<Response> => win.fetch(url, init);
  // One transport for every service: its interceptor adds the bearer token and refreshes it once.
  const interceptor = sessionInterceptor({
    sessions,
    refresh: (refreshToken) => auth.refresh(refreshToken),
    sessionEnded: () => navigate("/login", { replace: true, notice: "session-ended" }),
  });
  const transport = createConnectTransport({ baseUrl: win.location.origin, interceptors: [interceptor] });
  const auth = createAuthClient(transport, getFingerprint);
  const local = storageOrNull(() => win.localStorage);
  const lastOrg = {
    get: (): string => {
      try {
        return local?.getItem(LAST_ORG_KEY) ?? "";
      } catch {
        return "";
      }
    },
    set: (org: string): void => {
      try {
        local?.setItem(LAST_ORG_KEY, org);
      } catch {
        // Not remembered: the user types it next time.
      }
    },
  };
  return {
    sessions,
    auth,
    browser: createBrowserApi(transport),
    account: createAccountClient(transport),
    fetch: fetchImpl,
    lastOrg,
  };
}

const ServicesContext = createContext<AppServices | null>(null);
export const ServicesProvider = ServicesContext.Provider;

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (services === null) throw new Error("useServices() needs a <ServicesProvider>.");
  return services;
}

/** The stored session; re-renders when it is set or cleared. */
export function useSession(): Session | null {
  const { sessions } = useServices();
  return useSyncExternalStore(sessions.subscribe, sessions.get);
}
