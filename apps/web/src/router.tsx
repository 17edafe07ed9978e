import { useEffect, useSyncExternalStore } from "react";
import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from "react";

/** One-off messages carried to the next page in `history.state` (never in the URL). */
export type Notice = "session-ended" | "signed-out" | "sign-in-required" | "passkey-required";

export interface RouteLocation {
  readonly pathname: string;
  /** The query string, e.g. "?org=acme" ("" when none). */
  readonly search: string;
  readonly notice: Notice | null;
}

const NOTICES: readonly Notice[] = ["session-ended", "signed-out", "sign-in-required", "passkey-required"];
const listeners = new Set<() => void>();

function readLocation(): RouteLocation {
  const state: unknown = window.history.state;
  const notice = typeof state === "object" && state !== null && "notice" in state && NOTICES.includes(state.notice as Notice) ? (state.notice as Notice) : null;
  return { pathname: window.location.pathname, search: window.location.search, notice };
}

let current: RouteLocation | null = null;

function snapshot(): RouteLocation {
  current ??= readLocation();
  return current;
}

function update(): void {
  current = readLocation();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener("popstate", update);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener("popstate", update);
  };
}

export interface NavigateOptions {
  /** Replace the current history entry instead of adding one (redirects). */
  readonly replace?: boolean;
  readonly notice?: Notice;
}

/** Client-side navigation with the History API; no reload. */
export function navigate(path: string, options: NavigateOptions = {}): void {
  const state = options.notice === undefined ? null : { notice: options.notice };
  if (options.replace === true) window.history.replaceState(state, "", path);
  else window.history.pushState(state, "", path);
  update();
}

/** The current path and notice; re-renders on navigate() and on back/forward. */
export function useLocation(): RouteLocation {
  return useSyncExternalStore(subscribe, snapshot);
}

/** Navigates on mount (a redirect); renders nothing. */
export function Redirect({ to, notice }: { readonly to: string; readonly notice?: Notice }): null {
  useEffect(() => {
    navigate(to, notice === undefined ? { replace: true } : { replace: true, notice });
  }, [to, notice]);
  return null;
}

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  readonly to: string;
  readonly children: ReactNode;
}

/** An ordinary link (works with the keyboard, middle-click, "open in new tab") that navigates in-app on a plain click. */
export function Link({ to, onClick, children, ...rest }: LinkProps): ReactNode {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={handleClick} {...rest}>
      {children}
    </a>
  );
}
