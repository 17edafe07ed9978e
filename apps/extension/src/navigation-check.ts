/**
 * check-url for a navigation the rules sent to the check page. An allowed one gets a session rule that lets this tab
 * through to that origin (above the check's redirect, below the guards), so the page can open it; the rule is replaced
 * by the tab's next check and ends with the browser session.
 */
import { readConfig } from "./config.ts";
import { readSession } from "./session.ts";
import { RulePriority } from "@gatehouse/core/browser-rules";

export interface CheckAnswer {
  readonly allowed: boolean;
  readonly reason?: string;
  /** check-url's reason code of a refusal it decided (not of a failure to ask it). */
  readonly reasonCode?: string;
}

const NOT_CONNECTED = "Gatehouse is not connected, so this address can't be checked.";

export async function checkNavigation(url: string, tabId: number | undefined): Promise<CheckAnswer> {
  const config = await readConfig();
  const session = await readSession();
  if (config === null || session === null) return { allowed: false, reason: NOT_CONNECTED };
  let body: { allowed?: unknown; reason?: unknown; reason_code?: unknown; canonical_url?: unknown };
  try {
    const response = await fetch(`${config.serverOrigin}/api/browser/check-url`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ org_id: session.orgId, url }),
      credentials: "omit",
    });
    body = (await response.json()) as typeof body;
  } catch {
    return { allowed: false, reason: "Gatehouse could not reach your organization's server to check this address." };
  }
  if (body.allowed !== true || typeof body.canonical_url !== "string" || tabId === undefined) {
    return {
      allowed: false,
      reason: typeof body.reason === "string" ? body.reason : NOT_CONNECTED,
      ...(typeof body.reason_code === "string" ? { reasonCode: body.reason_code } : {}),
    };
  }
  const origin = new URL(body.canonical_url).origin;
  await chrome.declarativeNetRequest.updateSessionRules({
    removeRuleIds: [tabId],
    addRules: [
      {
        id: tabId,
        priority: RulePriority.checkedNavigation,
        action: { type: "allow" },
        condition: { urlFilter: `|${origin}^`, tabIds: [tabId], resourceTypes: ["main_frame"] },
      },
    ],
  });
  return { allowed: true };
}
