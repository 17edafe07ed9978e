/** The options page: where a person (or a test) names the server and the org, and connects. Managed settings are shown, not editable. */
import { readConfig, saveLocalConfig } from "./config.ts";
import { CONNECT_PATH } from "./connect.ts";
import { readEnforcement } from "./enforcement.ts";

const form = document.querySelector<HTMLFormElement>("#connect")!;
const server = document.querySelector<HTMLInputElement>("#server")!;
const org = document.querySelector<HTMLInputElement>("#org")!;
const message = document.querySelector<HTMLElement>("#message")!;
const state = document.querySelector<HTMLElement>("#state")!;

async function show(): Promise<void> {
  const config = await readConfig();
  if (config !== null && document.activeElement !== server && document.activeElement !== org) {
    server.value = config.serverOrigin;
    org.value = config.org;
    server.readOnly = org.readOnly = config.managed;
  }
  const enforcement = await readEnforcement();
  state.textContent =
    enforcement?.mode === "policy"
      ? `Connected. Enforcing policy version ${enforcement.version}.`
      : `Not connected: every site is blocked${config === null ? "" : " except the Gatehouse server"}.`;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  void (async () => {
    try {
      const config = (await readConfig())?.managed ? await readConfig() : await saveLocalConfig(server.value, org.value);
      if (config === null) return;
      message.textContent = "";
      await chrome.runtime.sendMessage({ type: "poll" });
      await chrome.tabs.create({ url: `${config.serverOrigin}${CONNECT_PATH}?org=${encodeURIComponent(config.org)}` });
    } catch (error) {
      message.textContent = error instanceof Error ? error.message : String(error);
    }
  })();
});

chrome.storage.onChanged.addListener(() => void show());
void show();
