/**
 * Content script in every frame of every http(s) page: the in-page half of the org's action restrictions. Copy, cut and
 * paste are cancelled without `copy_paste`; file inputs and dropped files are refused without `upload` (both also in
 * read-only mode, as the policy says); each refusal shows a short notice. Best-effort by nature: it runs in the page,
 * beside the page's own scripts (docs/browser-extension.md). Downloads are cancelled by the worker, which asks the tab
 * the member is looking at to show the notice.
 */
interface Restrictions {
  readonly allowedActions: readonly string[];
  readonly readOnlyMode: boolean;
}

let restrictions: Restrictions | null = null;
let exempt = false;

async function load(): Promise<void> {
  const { actionRestrictions, config } = await chrome.storage.local.get(["actionRestrictions", "config"]);
  restrictions = (actionRestrictions as Restrictions | undefined) ?? null;
  // The Gatehouse server's own pages (sign-in needs paste) are not an org site.
  exempt = typeof (config as { serverUrl?: unknown } | undefined)?.serverUrl === "string" && (config as { serverUrl: string }).serverUrl === location.origin;
}

function refused(action: "copy_paste" | "upload"): boolean {
  if (exempt || restrictions === null) return false;
  return restrictions.readOnlyMode || !restrictions.allowedActions.includes(action);
}

const NOTICES = {
  copy_paste: "Your organization doesn't allow copying and pasting on this site.",
  upload: "Your organization doesn't allow uploading files on this site.",
  download: "Your organization doesn't allow downloading files on this site.",
} as const;

function notify(action: keyof typeof NOTICES): void {
  const host = document.createElement("gatehouse-notice");
  const shadow = host.attachShadow({ mode: "open" });
  const box = document.createElement("div");
  box.setAttribute("role", "alert");
  box.textContent = NOTICES[action];
  box.style.cssText =
    "position:fixed;z-index:2147483647;bottom:16px;left:50%;transform:translateX(-50%);background:#222;color:#fff;padding:8px 14px;border-radius:6px;font:14px system-ui,sans-serif";
  shadow.append(box);
  (document.body ?? document.documentElement).append(host);
  setTimeout(() => host.remove(), 4_000);
}

function cancel(event: Event, action: "copy_paste" | "upload"): void {
  if (!refused(action)) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  notify(action);
  // The worker reports it to the server, in its next batch; a drag refused all along its way is reported once, at the drop.
  if (event.type === "dragover") return;
  void chrome.runtime.sendMessage({ type: "blocked", action, readOnly: restrictions?.readOnlyMode === true }).catch(() => undefined);
}

for (const type of ["copy", "cut", "paste"]) window.addEventListener(type, (event) => cancel(event, "copy_paste"), true);
window.addEventListener(
  "click",
  (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement && target.type === "file") cancel(event, "upload");
  },
  true,
);
window.addEventListener(
  "change",
  (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement && target.type === "file" && refused("upload")) {
      target.value = "";
      cancel(event, "upload");
    }
  },
  true,
);
for (const type of ["dragover", "drop"]) {
  window.addEventListener(
    type,
    (event) => {
      if ((event as DragEvent).dataTransfer?.types.includes("Files") === true) cancel(event, "upload");
    },
    true,
  );
}

chrome.runtime.onMessage.addListener((message, sender) => {
  const { type, action } = (typeof message === "object" && message !== null ? message : {}) as { type?: unknown; action?: unknown };
  if (sender.id === chrome.runtime.id && type === "notice" && action === "download") notify("download");
  return undefined;
});
chrome.storage.onChanged.addListener(() => void load());
void load();
