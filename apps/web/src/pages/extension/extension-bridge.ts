/**
 * Talks to the Gatehouse extension through its content script, which the extension registers on this page of its
 * configured server only: `window.postMessage` to the page's own origin, answered the same way. No answer within
 * `timeoutMs` means no extension is listening (not installed, or configured for another server).
 */
const PAGE = "gatehouse-page";
const EXTENSION = "gatehouse-extension";

export interface ExtensionAnswer {
  readonly ok: boolean;
  readonly status?: { readonly version: string; readonly enforcement: string | null; readonly policyVersion: number | null };
}

let nextId = 0;

export function askExtension(win: Window, message: unknown, timeoutMs = 3_000): Promise<ExtensionAnswer | null> {
  const id = `${Date.now()}-${++nextId}`;
  return new Promise((resolve) => {
    const timer = win.setTimeout(() => finish(null), timeoutMs);
    function finish(answer: ExtensionAnswer | null): void {
      win.clearTimeout(timer);
      win.removeEventListener("message", onMessage);
      resolve(answer);
    }
    function onMessage(event: MessageEvent): void {
      if (event.source !== win || event.origin !== win.location.origin) return;
      const data: unknown = event.data;
      if (typeof data !== "object" || data === null) return;
      const { from, id: answerId, answer } = data as { from?: unknown; id?: unknown; answer?: unknown };
      if (from !== EXTENSION || answerId !== id) return;
      finish(typeof answer === "object" && answer !== null ? (answer as ExtensionAnswer) : { ok: false });
    }
    win.addEventListener("message", onMessage);
    win.postMessage({ from: PAGE, id, message }, win.location.origin);
  });
}
