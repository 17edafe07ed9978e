import type { ReactNode } from "react";
import { AppShell } from "../components/AppShell.tsx";
import { Link, Redirect } from "../router.tsx";
import { useSession } from "../services.tsx";

/** /: signed-in users go straight to the browser; everyone else chooses sign-in or registration. */
export function HomePage(): ReactNode {
  const session = useSession();
  if (session !== null) return <Redirect to="/browser" />;
  return (
    <AppShell title="Welcome">
      <div className="card auth-card stack">
        <h1>Welcome to Gatehouse</h1>
        <p>Sign in to open the sites your organization allows. Some sign-ins ask for a code sent to your phone.</p>
        <div className="choice">
          <Link to="/login" className="button button-primary" data-testid="home-login">
            Sign in
          </Link>
          <Link to="/register" className="button button-secondary" data-testid="home-register">
            Create an account
          </Link>
        </div>
      </div>
    </AppShell>
  );
}
