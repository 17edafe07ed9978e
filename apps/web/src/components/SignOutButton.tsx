import { useState } from "react";
import type { ReactNode } from "react";
import { navigate } from "../router.tsx";
import { useServices } from "../services.tsx";
import { Button } from "./Button.tsx";

/** Ends the session on the server (Logout) and here, then goes to /login. */
export function SignOutButton(): ReactNode {
  const { auth, sessions } = useServices();
  const [busy, setBusy] = useState(false);
  const signOut = async (): Promise<void> => {
    setBusy(true);
    try {
      await auth.logout();
    } catch {
      // The session is dropped locally either way; an already-invalid token needs no logout.
    }
    sessions.clear();
    navigate("/login", { replace: true, notice: "signed-out" });
  };
  return (
    <Button variant="ghost" busy={busy} busyLabel="Signing out…" onClick={() => void signOut()} testId="sign-out">
      Sign out
    </Button>
  );
}
