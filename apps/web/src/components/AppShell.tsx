import { useEffect } from "react";
import type { ReactNode } from "react";
import { Link } from "../router.tsx";

interface AppShellProps {
  /** Page name for the document title. */
  readonly title: string;
  /** Extra controls at the right of the top bar (the sign-out button). */
  readonly actions?: ReactNode;
  /** Wider content column, for the browser page. */
  readonly wide?: boolean;
  readonly children: ReactNode;
}

/** Top bar, skip link and the page's single <main>. */
export function AppShell({ title, actions, wide = false, children }: AppShellProps): ReactNode {
  useEffect(() => {
    document.title = `${title} · Gatehouse`;
  }, [title]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
            <rect width="32" height="32" rx="7" />
            <path d="M9 26V13l7-5 7 5v13h-5v-7h-4v7z" />
          </svg>
          Gatehouse
        </Link>
        {actions === undefined ? null : <div className="topbar-actions">{actions}</div>}
      </header>
      <main id="main" tabIndex={-1} className={wide ? "page page-wide" : "page"}>
        {children}
      </main>
    </>
  );
}
