/**
 * The check page: a navigation the rules cannot decide (a Punycode host) lands here with its URL in the fragment.
 * The worker asks check-url; an allowed URL is opened (the worker first lets this tab through to that origin), a
 * denied one stays here with check-url's reason.
 */
const state = document.querySelector<HTMLElement>("#state")!;
const reason = document.querySelector<HTMLElement>("#reason")!;
// The fragment as Chrome wrote it: the canonical URL, whose escapes must stay as they are.
const target = location.hash.slice(1);

void (async () => {
  const answer = (await chrome.runtime.sendMessage({ type: "check", url: target })) as { allowed?: boolean; reason?: string } | undefined;
  if (answer?.allowed === true) {
    location.replace(target);
    return;
  }
  state.textContent = "This address can't be opened.";
  reason.textContent = answer?.reason ?? "Gatehouse could not check this address with your organization's policy.";
  reason.hidden = false;
})();
