/**
 * The service worker: keeps the installed rules equal to the org's current policy version. It polls the server with
 * the version it holds (`If-None-Match`), every POLL_MS while it runs; an alarm wakes it when Chrome has stopped it.
 * Without a fresh policy (not configured, signed out, revoked, or unreachable past the grace) it fails closed.
 */
import { readConfig } from "./config.ts";
import type { ExtensionConfig } from "./config.ts";
import { installFailClosed, installPolicy, policyFromJson, readEnforcement } from "./enforcement.ts";
import { acceptConnectMessage, registerConnectBridge } from "./connect.ts";
import { checkNavigation } from "./navigation-check.ts";
import { createReporter, sendReports, type BlockedKind } from "./reports.ts";
import { refusedScheme } from "./schemes.ts";
import { forgetSession, freshSession, readSession, refreshSession } from "./session.ts";

/** How often a running worker asks for a new version: a saved policy reaches the browser within this plus one request. */
const POLL_MS = 5_000;
const ALARM = "poll";

const reporter = createReporter(sendReports, (run, ms) => setTimeout(run, ms));

let running: Promise<void> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;

/** One poll at a time: a request during a poll waits for it, then polls again (its trigger may postdate what that poll read). */
async function pollNow(): Promise<void> {
  while (running !== null) await running;
  running = poll()
    .catch(failClosedOnError)
    .finally(() => {
      running = null;
    });
  await running;
}

function pollSoon(delay = 0): void {
  clearTimeout(timer);
  timer = setTimeout(() => void pollNow().finally(() => pollSoon(POLL_MS)), delay);
}

/** A poll that broke (a rule Chrome refused, storage failing) must not leave an old policy in force: fail closed. */
async function failClosedOnError(error: unknown): Promise<void> {
  console.error("gatehouse: poll failed", error);
  const config = await readConfig().catch(() => null);
  await installFailClosed(config?.serverOrigin ?? null, "unreachable", Date.now()).catch((again: unknown) =>
    console.error("gatehouse: cannot fail closed", again),
  );
}

async function poll(): Promise<void> {
  const now = Date.now();
  const config = await readConfig();
  if (config === null) return installFailClosed(null, "not_configured", now);
  await registerConnectBridge(config.serverOrigin);
  const session = await readSession();
  if (session === null) return installFailClosed(config.serverOrigin, "signed_out", now);
  const fresh = await freshSession(config.serverOrigin, session, now);
  if (fresh.kind === "signed_out") return installFailClosed(config.serverOrigin, "signed_out", now);
  if (fresh.kind === "unreachable") return unreachable(config, now);
  await fetchPolicy(config, fresh.session, now, true);
}

async function fetchPolicy(
  config: ExtensionConfig,
  session: { accessToken: string; orgId: string; refreshToken: string; expiresAt: number },
  now: number,
  mayRefresh: boolean,
): Promise<void> {
  const held = await readEnforcement();
  const etag = held?.mode === "policy" && held.orgId === session.orgId ? held.etag : null;
  let response: Response;
  try {
    response = await fetch(`${config.serverOrigin}/api/browser/extension-rules?org_id=${encodeURIComponent(session.orgId)}`, {
      // The version lets the org's admin see which extension each connected browser runs.
      headers: {
        authorization: `Bearer ${session.accessToken}`,
        "x-gatehouse-extension": chrome.runtime.getManifest().version,
        ...(etag === null ? {} : { "if-none-match": etag }),
      },
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    return unreachable(config, now);
  }
  if (response.status === 304 && held?.mode === "policy") {
    await chrome.storage.local.set({ enforcement: { ...held, checkedAt: now } });
    return;
  }
  if (response.status === 401 && mayRefresh) {
    // The access token was revoked or expired early: a refresh tells a revoked session (refused) from an old token.
    const refreshed = await refreshSession(config.serverOrigin, session);
    if (refreshed.kind === "fresh") return fetchPolicy(config, refreshed.session, now, false);
    if (refreshed.kind === "unreachable") return unreachable(config, now);
    return installFailClosed(config.serverOrigin, "signed_out", now);
  }
  if (response.status === 401 || response.status === 403) {
    await forgetSession();
    return installFailClosed(config.serverOrigin, "signed_out", now);
  }
  const policy = response.ok ? policyFromJson(await response.json().catch(() => null)) : null;
  if (policy === null) return unreachable(config, now);
  await installPolicy(policy, config.serverOrigin, {
    mode: "policy",
    version: policy.version,
    etag: response.headers.get("etag") ?? `"${policy.version}"`,
    checkedAt: now,
    orgId: session.orgId,
    graceMinutes: policy.graceMinutes,
  });
}

/** The last policy holds for the org's grace after its last confirmation; after that, fail closed. */
async function unreachable(config: ExtensionConfig, now: number): Promise<void> {
  const held = await readEnforcement();
  // A state stored before the grace was an org setting has none: the comparison with NaN is false, so it fails closed.
  if (held?.mode === "policy" && now - held.checkedAt <= held.graceMinutes * 60_000) return;
  await installFailClosed(config.serverOrigin, "unreachable", now);
}

// Downloads: refused ones are cancelled in the first event Chrome gives (onCreated), with no await before the call, so
// a small download cannot complete first; the answer is kept in memory and refreshed from storage on every change.
// Without `download` (or in read-only mode, or without a fresh policy) every download is refused but the Gatehouse
// server's own (recovery codes). Chrome deletes the partial file of a cancelled download; its record is erased too.
let downloads: { allowed: boolean; serverOrigin: string | null } = { allowed: false, serverOrigin: null };

async function loadDownloadRule(): Promise<void> {
  const { actionRestrictions, enforcement, config } = await chrome.storage.local.get(["actionRestrictions", "enforcement", "config"]);
  const restrictions = actionRestrictions as { allowedActions?: string[]; readOnlyMode?: boolean } | undefined;
  downloads = {
    allowed:
      (enforcement as { mode?: string } | undefined)?.mode === "policy" &&
      restrictions?.readOnlyMode !== true &&
      restrictions?.allowedActions?.includes("download") === true,
    serverOrigin: (config as { serverUrl?: string } | undefined)?.serverUrl ?? null,
  };
}

chrome.downloads.onCreated.addListener((item) => {
  const source = URL.parse(item.url);
  const origin = source?.protocol === "blob:" ? URL.parse(source.pathname)?.origin : source?.origin;
  if (downloads.allowed || (origin !== undefined && origin === downloads.serverOrigin)) return;
  void chrome.downloads
    .cancel(item.id)
    .then(() => chrome.downloads.erase({ id: item.id }))
    .then(noticeOfRefusedDownload)
    .catch(() => undefined);
  // Reported after the cancel is asked for, so that nothing runs before it.
  reporter.add({ kind: "download_blocked", rule: "download", url: item.url, at: Date.now() });
});

/**
 * A download has no tab of its own: the notice goes to the tab the member is looking at (its top frame only, one
 * notice), whose content script shows it as it shows the other refusals. A tab without the content script (a browser
 * page) shows none.
 */
async function noticeOfRefusedDownload(): Promise<void> {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab?.id === undefined) return;
  await chrome.tabs.sendMessage(tab.id, { type: "notice", action: "download" }, { frameId: 0 }).catch(() => undefined);
}

// Schemes the network rules never see: a top-level navigation to one goes to the check page, where check-url refuses it.
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId !== 0 || !refusedScheme(details.url)) return;
  void chrome.tabs.update(details.tabId, { url: `${chrome.runtime.getURL("check.html")}#${details.url}` }).catch(() => undefined);
});
// A navigation the network rules blocked fails with this error; the rule that matched is not told (that needs the
// declarativeNetRequestFeedback permission), so the report names the policy, or why the extension fails closed.
chrome.webNavigation.onErrorOccurred.addListener((details) => {
  if (details.frameId !== 0 || details.error !== "net::ERR_BLOCKED_BY_CLIENT") return;
  void readEnforcement().then((state) =>
    reporter.add({
      kind: "navigation_blocked",
      rule: state?.mode === "fail_closed" ? `fail_closed:${state.reason}` : "policy",
      url: details.url,
      at: Date.now(),
    }),
  );
});
chrome.storage.onChanged.addListener(() => void loadDownloadRule());
void loadDownloadRule();

chrome.runtime.onInstalled.addListener(() => pollSoon());
chrome.runtime.onStartup.addListener(() => pollSoon());
void chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => pollSoon());
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "managed" || "config" in changes || "session" in changes) pollSoon();
});
chrome.runtime.onMessage.addListener((message, sender, respond) => {
  // One of this extension's own pages (a content script's sender has the web page's origin). Chrome may report a
  // redirected page's `url` as the address it came from, so the origin, not the URL, says who is asking.
  const ownPage = sender.id === chrome.runtime.id && sender.origin === new URL(chrome.runtime.getURL("")).origin;
  const { type, url, action, readOnly } = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  // A content script's refusal in its page: the page's URL is the one Chrome names, not one the page could write.
  if (sender.id === chrome.runtime.id && !ownPage && type === "blocked" && (action === "copy_paste" || action === "upload") && sender.url !== undefined) {
    const kind: BlockedKind = readOnly === true ? "read_only_blocked" : action === "copy_paste" ? "copy_paste_blocked" : "upload_blocked";
    reporter.add({ kind, rule: action, url: sender.url, at: Date.now() });
    return false;
  }
  // The options page asks for a poll once it saved the server, so the server's pages are allowed before it opens one;
  // the check page asks check-url about the navigation the rules sent to it (a refusal it decides is reported).
  const answer =
    ownPage && type === "poll"
      ? pollNow().then(() => ({ ok: true }))
      : ownPage && type === "check" && typeof url === "string"
        ? checkNavigation(url, sender.tab?.id).then((checked) => {
            if (checked.reasonCode !== undefined) reporter.add({ kind: "navigation_blocked", rule: checked.reasonCode, url, at: Date.now() });
            return checked;
          })
        : acceptConnectMessage(message, sender);
  void answer.then(respond, (error: unknown) => {
    console.error("gatehouse: message failed", error);
    respond({ ok: false, allowed: false });
  });
  return true;
});
pollSoon();
