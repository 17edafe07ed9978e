import type { BrowserPolicy } from "../url-policy/types.ts";

/** The extension's id: Chrome derives it from the manifest's pinned `key` (apps/extension/manifest.json; a test keeps the two equal). */
export const GATEHOUSE_EXTENSION_ID = "kajnginfalpggeiifpijjeigmafmmmoc";

/** The Chrome Web Store's update URL, for an extension installed from the store. */
export const WEB_STORE_UPDATE_URL = "https://clients2.google.com/service/update2/crx";

export interface ChromePolicyInput {
  readonly orgId: string;
  /** The Gatehouse server members connect to. */
  readonly serverUrl: string;
  /** Where Chrome fetches the extension: the Web Store, or a self-hosted update manifest. */
  readonly updateUrl?: string;
  readonly policy: BrowserPolicy;
}

/**
 * The Chrome/Edge managed-policy JSON of an org's fleet (docs/browser-extension.md): the extension force-installed and
 * configured, and the browser policies that close what an extension cannot: DevTools (which could disable or edit it),
 * incognito (where it does not run), and, when the org allows no download at all, downloads.
 */
export function chromePolicyFor(input: ChromePolicyInput): Record<string, unknown> {
  const server = URL.parse(input.serverUrl);
  if (server === null || server.protocol !== "https:") throw new RangeError("the server URL must be an https:// URL");
  const update = URL.parse(input.updateUrl ?? WEB_STORE_UPDATE_URL);
  if (update === null || update.protocol !== "https:") throw new RangeError("the update URL must be an https:// URL");
  const blocksDownloads = !input.policy.actionRestrictions.allowedActions.includes("download");
  return {
    ExtensionSettings: {
      [GATEHOUSE_EXTENSION_ID]: { installation_mode: "force_installed", update_url: update.href, toolbar_pin: "force_pinned" },
    },
    "3rdparty": { extensions: { [GATEHOUSE_EXTENSION_ID]: { serverUrl: server.origin, org: input.orgId } } },
    DeveloperToolsAvailability: 2,
    IncognitoModeAvailability: 1,
    ...(blocksDownloads ? { DownloadRestrictions: 3 } : {}),
  };
}
