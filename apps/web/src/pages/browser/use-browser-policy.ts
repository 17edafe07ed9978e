import type { ReceivedBrowserPolicy } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { serverMessageOf, type BrowserApi } from "../../api/browser-api.ts";
import { isSessionEnded } from "../../api/session-interceptor.ts";

export type PolicyState =
  | { readonly status: "loading" }
  | { readonly status: "ready"; readonly policy: ReceivedBrowserPolicy }
  | { readonly status: "error"; readonly message: string };

/** Loads the org's browser policy once per org (BrowserService.GetBrowserPolicy). */
export function useBrowserPolicy(browser: BrowserApi, orgId: string): PolicyState {
  const [state, setState] = useState<PolicyState>({ status: "loading" });

  useEffect(() => {
    const controller = new AbortController();
    setState({ status: "loading" });
    browser.getPolicy(orgId, controller.signal).then(
      (policy) => {
        if (!controller.signal.aborted) setState({ status: "ready", policy });
      },
      (error: unknown) => {
        if (controller.signal.aborted || isSessionEnded(error)) return;
        const message = serverMessageOf(error);
        const detail = message === null ? "" : ` (${message})`;
        setState({ status: "error", message: `Your organization's policy could not be loaded${detail}. Actions stay off until it loads.` });
      },
    );
    return () => controller.abort();
  }, [browser, orgId]);

  return state;
}
