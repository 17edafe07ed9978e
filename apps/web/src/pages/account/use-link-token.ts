import { useState } from "react";

/** The token of an emailed link: it travels in the fragment (`#token=…`), which no server or log ever sees. */
export function linkToken(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, "")).get("token") ?? "";
}

/**
 * The emailed link's token, read once from the fragment, which is then cleared from the address bar and
 * the history entry: the page can be shared or bookmarked without handing the link on.
 */
export function useLinkToken(): string {
  const [token] = useState(() => {
    const value = linkToken(window.location.hash);
    if (value !== "") window.history.replaceState(window.history.state, "", window.location.pathname);
    return value;
  });
  return token;
}
