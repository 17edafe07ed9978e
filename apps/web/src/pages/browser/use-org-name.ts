import { useEffect, useState } from "react";
import type { BrowserApi } from "../../api/browser-api.ts";

/**
 * The signed-in org's display name (BrowserService.GetOrg); null while loading or when it cannot be
 * read, so the page says "Your organization" and never shows a raw id.
 */
export function useOrgName(browser: BrowserApi, orgId: string): string | null {
  const [name, setName] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setName(null);
    browser.getOrg(orgId, controller.signal).then(
      (org) => {
        if (!controller.signal.aborted) setName(org.name === "" ? null : org.name);
      },
      () => undefined,
    );
    return () => controller.abort();
  }, [browser, orgId]);

  return name;
}
