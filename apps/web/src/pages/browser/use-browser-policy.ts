import type { ReceivedBrowserPolicy } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { ApiError } from "../../api/api-error.ts";
import { SessionEndedError } from "../../api/authed-fetch.ts";
import type { BrowserApi } from "../../api/browser-api.ts";

export type PolicyState =
  | { readonly status: "loading" }
  | { readonly status: "ready"; readonly policy: ReceivedBrowserPolicy }
  | { readonly status: "error"; readonly message: string };

/** Loads the org's browser policy once per org (GET /api/browser/policy). */
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
        if (controller.signal.aborted || error instanceof SessionEndedError) return;
        const detail = error instanceof ApiError ? ` (${error.message})` : "";
        setState({ status: "error", message: `Your organization's policy could not be loaded${detail}. Actions stay off until it loads.` });
      },
    );
    return () => controller.abort();
  }, [browser, orgId]);

  return state;
}
