/**
 * Content script on the configured server's `/extension/connect` and `/browser` pages: relays the page's messages to the extension and
 * the answers back. The page learns the extension is there from the first message.
 */
const PAGE = "gatehouse-page";
const EXTENSION = "gatehouse-extension";

window.addEventListener("message", (event: MessageEvent) => {
  if (event.source !== window || event.origin !== location.origin) return;
  const data: unknown = event.data;
  if (typeof data !== "object" || data === null || (data as { from?: unknown }).from !== PAGE) return;
  const { id, message } = data as { id?: unknown; message?: unknown };
  void chrome.runtime.sendMessage(message).then((answer: unknown) => window.postMessage({ from: EXTENSION, id, answer }, location.origin));
});
window.postMessage({ from: EXTENSION, ready: true }, location.origin);
