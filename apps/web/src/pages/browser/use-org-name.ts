import { useEffect, useState } from "react";
import type { OrgInfoView } from "@gatehouse/contract";
import type { BrowserApi } from "../../api/browser-api.ts";

/**
 * The signed-in org as a member sees it (BrowserService.GetOrg): its display name and whether `/browser` needs the
 * extension; null while loading or when it cannot be read, so the page says "Your organization" and never shows a raw id.
 */
export function useOrgInfo(browser: BrowserApi, orgId: string): OrgInfoView | null {
  const [org, setOrg] = useState<OrgInfoView | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setOrg(null);
    browser.getOrg(orgId, controller.signal).then(
      (info) => {
        if (!controller.signal.aborted) setOrg(info);
      },
      () => undefined,
    );
    return () => controller.abort();
  }, [browser, orgId]);

  return org;
}
