/** `gatehouse browser …`: deploying the browser extension. */
import { chromePolicyFor, SYSTEM_ACTOR } from "@gatehouse/core";
import { ORG_PARAM, UsageError, type Command } from "./command.ts";
import { orgIdOf } from "./references.ts";

/** The browser extension's commands. */
export const BROWSER_COMMANDS: Readonly<Record<string, Command>> = {
  "browser chrome-policy": {
    summary: "print the Chrome/Edge managed-policy JSON that force-installs and configures the extension for the org (docs/browser-extension.md)",
    params: { org: ORG_PARAM },
    options: {
      "server-url": ["https://…", "required: the Gatehouse server members connect to"],
      "update-url": ["https://…", "where Chrome fetches the extension (default: the Chrome Web Store)"],
    },
    output: '{"ExtensionSettings", "3rdparty", "DeveloperToolsAvailability", "IncognitoModeAvailability", "DownloadRestrictions" when no download is allowed}',
    run: async ({ args, values, gatehouse }) => {
      if (values["server-url"] === undefined) throw new UsageError("browser chrome-policy needs --server-url https://…");
      const orgId = await orgIdOf(gatehouse, args[0]!);
      const policy = await gatehouse.admin.getOrgBrowserPolicy(SYSTEM_ACTOR, { orgId });
      try {
        return chromePolicyFor({
          orgId,
          serverUrl: values["server-url"],
          policy,
          ...(values["update-url"] === undefined ? {} : { updateUrl: values["update-url"] }),
        });
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message);
        throw error;
      }
    },
  },
};
