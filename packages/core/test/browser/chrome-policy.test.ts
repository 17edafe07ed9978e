import { describe, expect, it } from "vitest";
import { chromePolicyFor, GATEHOUSE_EXTENSION_ID, WEB_STORE_UPDATE_URL } from "../../src/browser/index.ts";
import { DEFAULT_BROWSER_POLICY } from "../../src/url-policy/index.ts";
import type { BrowserPolicy } from "../../src/url-policy/index.ts";

const withActions = (allowedActions: BrowserPolicy["actionRestrictions"]["allowedActions"]): BrowserPolicy => ({
  ...DEFAULT_BROWSER_POLICY,
  actionRestrictions: { allowedActions, readOnlyMode: false },
});

describe("chromePolicyFor", () => {
  it("force-installs and configures the extension and closes DevTools and incognito", () => {
    const policy = chromePolicyFor({ orgId: "org_1", serverUrl: "https://gatehouse.example.com/login", policy: withActions(["navigate", "download"]) });
    expect(policy).toEqual({
      ExtensionSettings: { [GATEHOUSE_EXTENSION_ID]: { installation_mode: "force_installed", update_url: WEB_STORE_UPDATE_URL, toolbar_pin: "force_pinned" } },
      "3rdparty": { extensions: { [GATEHOUSE_EXTENSION_ID]: { serverUrl: "https://gatehouse.example.com", org: "org_1" } } },
      DeveloperToolsAvailability: 2,
      IncognitoModeAvailability: 1,
    });
  });

  it.each([
    [["navigate"], true],
    [["navigate", "upload", "copy_paste"], true],
    [["navigate", "download"], false],
  ] as const)("actions %j: DownloadRestrictions 3 is %s", (actions, blocks) => {
    const policy = chromePolicyFor({ orgId: "o", serverUrl: "https://g.example", policy: withActions(actions) });
    expect("DownloadRestrictions" in policy ? policy.DownloadRestrictions : null).toBe(blocks ? 3 : null);
  });

  it("takes a self-hosted update URL", () => {
    const policy = chromePolicyFor({
      orgId: "o",
      serverUrl: "https://g.example",
      updateUrl: "https://g.example/extension/updates.xml",
      policy: DEFAULT_BROWSER_POLICY,
    });
    expect(policy.ExtensionSettings).toEqual({
      [GATEHOUSE_EXTENSION_ID]: expect.objectContaining({ update_url: "https://g.example/extension/updates.xml" }),
    });
  });

  it.each(["http://g.example", "javascript:alert(1)", "g.example"])("refuses the server URL %s", (serverUrl) => {
    expect(() => chromePolicyFor({ orgId: "o", serverUrl, policy: DEFAULT_BROWSER_POLICY })).toThrow(RangeError);
  });
});
