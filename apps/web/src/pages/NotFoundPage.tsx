import type { ReactNode } from "react";
import { AppShell } from "../components/AppShell.tsx";
import { Link } from "../router.tsx";

export function NotFoundPage(): ReactNode {
  return (
    <AppShell title="Page not found">
      <div className="card auth-card stack">
        <h1>Page not found</h1>
        <p>There is nothing at this address.</p>
        <p>
          <Link to="/">Go to the start page</Link>
        </p>
      </div>
    </AppShell>
  );
}
