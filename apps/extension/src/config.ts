/** Where the extension connects: managed storage (an admin's deployment) wins over what a person typed in the options page. */
export interface ExtensionConfig {
  /** The server's origin, as `URL#origin` prints it. */
  readonly serverOrigin: string;
  /** The org's id or slug, passed to the connect page. */
  readonly org: string;
  readonly managed: boolean;
}

const LOCAL_KEY = "config";

export async function readConfig(): Promise<ExtensionConfig | null> {
  // An unmanaged profile has no managed storage: Chrome rejects the read, which means "not managed".
  const managed = await chrome.storage.managed.get(null).catch(() => ({}));
  const fromPolicy = configFrom(managed, true);
  if (fromPolicy !== null) return fromPolicy;
  const local = (await chrome.storage.local.get(LOCAL_KEY))[LOCAL_KEY];
  return typeof local === "object" && local !== null ? configFrom(local as Record<string, unknown>, false) : null;
}

export async function saveLocalConfig(serverUrl: string, org: string): Promise<ExtensionConfig> {
  const config = configFrom({ serverUrl, org }, false);
  if (config === null) throw new Error("Enter the Gatehouse server's address (https://…) and your organization.");
  await chrome.storage.local.set({ [LOCAL_KEY]: { serverUrl: config.serverOrigin, org: config.org } });
  return config;
}

export function configFrom(values: Record<string, unknown>, managed: boolean): ExtensionConfig | null {
  const { serverUrl, org } = values;
  if (typeof serverUrl !== "string" || typeof org !== "string" || org.trim() === "") return null;
  const url = URL.parse(serverUrl.trim());
  // Plain http only for a server on this machine (development and tests); anything else must be https.
  if (url === null || !(url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname)))) return null;
  return { serverOrigin: url.origin, org: org.trim(), managed };
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || hostname.startsWith("127.");
}
