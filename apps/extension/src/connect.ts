/**
 * How the server's `/extension/connect` page hands the extension its session. A content script is registered at run
 * time on that page of the configured server only (a manifest's `externally_connectable` is fixed at build time and
 * cannot name a server an admin chooses later); it relays the page's `window.postMessage` to this worker, which
 * accepts it only from that origin and path.
 */
import { readConfig } from "./config.ts";
import { readEnforcement } from "./enforcement.ts";
import { saveSession, sessionFromTokens } from "./session.ts";

const BRIDGE_ID = "connect-bridge";
export const CONNECT_PATH = "/extension/connect";
/** The server's `/browser` page asks (status only) whether the extension is connected and which policy it holds. */
export const BROWSER_PATH = "/browser";

let bridgeOrigin: string | null = null;

export async function registerConnectBridge(serverOrigin: string): Promise<void> {
  if (bridgeOrigin === serverOrigin) return;
  await chrome.scripting.unregisterContentScripts({ ids: [BRIDGE_ID] }).catch(() => undefined);
  await chrome.scripting.registerContentScripts([
    {
      id: BRIDGE_ID,
      matches: [`${serverOrigin}${CONNECT_PATH}*`, `${serverOrigin}${BROWSER_PATH}`, `${serverOrigin}${BROWSER_PATH}?*`],
      js: ["connect-bridge.js"],
      runAt: "document_start",
    },
  ]);
  bridgeOrigin = serverOrigin;
}

/** Messages the bridge relays: a session to keep, or a question about what the extension enforces. */
export async function acceptConnectMessage(message: unknown, sender: chrome.runtime.MessageSender): Promise<unknown> {
  const config = await readConfig();
  if (config === null || sender.id !== chrome.runtime.id || sender.origin !== config.serverOrigin) return { ok: false };
  const path = sender.url === undefined ? null : new URL(sender.url).pathname;
  if (path !== CONNECT_PATH && path !== BROWSER_PATH) return { ok: false };
  const { type, tokens } = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  if (type === "status") return { ok: true, status: await status() };
  // Only the connect page hands over a session.
  if (type !== "session" || path !== CONNECT_PATH) return { ok: false };
  const session = sessionFromTokens(tokens);
  if (session === null) return { ok: false };
  await saveSession(session);
  return { ok: true };
}

async function status(): Promise<unknown> {
  const enforcement = await readEnforcement();
  return {
    version: chrome.runtime.getManifest().version,
    enforcement: enforcement?.mode ?? null,
    policyVersion: enforcement?.mode === "policy" ? enforcement.version : null,
  };
}
