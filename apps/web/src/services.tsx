import { createOidcInteractionClient, type OidcInteractionClient } from "./api/oidc-interaction.ts";
import { createContext, useContext, useSyncExternalStore } from "react";
import { createConnectTransport } from "@connectrpc/connect-web";
import { createAccountClient } from "./api/account-client.ts";
import { createAdminClient } from "./api/admin-client.ts";
import type { AdminClient } from "./api/admin-client.ts";
import type { AccountClient } from "./api/account-client.ts";
import { createAuthClient } from "./api/auth-client.ts";
import { measureRoundTrip } from "./round-trip.ts";
import type { AuthClient } from "./api/auth-client.ts";
import { createBrowserApi } from "./api/browser-api.ts";
import { readConnectedServices } from "./api/connected-services.ts";
import type { ConnectedService } from "./api/connected-services.ts";
import { createRegistrantProofStore } from "./api/registrant-proof.ts";
import type { RegistrantProofStore } from "./api/registrant-proof.ts";
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
  /** AdminService for the session's org (the console at /admin). */
  readonly admin: AdminClient;
  /** The OpenID Provider's interaction (/authorize/:uid). */
  readonly oidc: OidcInteractionClient;
  /** Plain fetch for the dev helpers' JSON routes (`GET /api/dev/mfa/otp`, `GET /api/dev/mail`: public, dev mode only, no RPC). */
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** The organization (short name, as typed) of the last sign-in on this browser, to prefill the form (not a secret). */
  readonly lastOrg: { get(): string; set(org: string): void };
  /** Register's proof for this tab, sent with the verification link opened here. */
  readonly registrantProof: RegistrantProofStore;
  /** The services /account calls with an access JWT (the server's WEB_SERVICES). */
  readonly connectedServices: readonly ConnectedService[];
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
export function memoryStorage(): StorageLike {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** What a page that signs in for someone else (the browser extension's connect page) changes: where the session lives, which device signs in. */
export interface ServicesOptions {
  /** Default: sessionStorage (the tab's own session). */
  readonly sessionStorage?: StorageLike;
  /** Default: this browser's fingerprint from localStorage. */
  readonly deviceFingerprint?: string;
  /** Where a refresh that failed sends the member; default: /login. */
  readonly sessionEnded?: () => void;
}

export function createAppServices(win: Window, options: ServicesOptions = {}): AppServices {
  const sessions = createSessionStore(options.sessionStorage ?? storageOrNull(() => win.sessionStorage) ?? memoryStorage());
  let fingerprint: string | null = options.deviceFingerprint ?? null;
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
    sessionEnded: options.sessionEnded ?? (() => navigate("/login", { replace: true, notice: "session-ended" })),
  });
  const transport = createConnectTransport({ baseUrl: win.location.origin, interceptors: [interceptor] });
  const auth = createAuthClient(transport, getFingerprint, () => measureRoundTrip(fetchImpl, () => win.performance.now(), win.location.origin));
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
    admin: createAdminClient(transport, () => sessions.get()?.orgId ?? ""),
    fetch: fetchImpl,
    oidc: createOidcInteractionClient(fetchImpl, win.location.origin),
    lastOrg,
    registrantProof: createRegistrantProofStore(storageOrNull(() => win.sessionStorage)),
    connectedServices: readConnectedServices(win.document),
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
