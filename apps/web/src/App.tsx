import type { ReactNode } from "react";
import { AdminPage } from "./pages/admin/AdminPage.tsx";
import { AcceptInvitationPage } from "./pages/account/AcceptInvitationPage.tsx";
import { AccountPage } from "./pages/account/AccountPage.tsx";
import { ForgotPasswordPage } from "./pages/account/ForgotPasswordPage.tsx";
import { ResetPasswordPage } from "./pages/account/ResetPasswordPage.tsx";
import { DisownSignInPage } from "./pages/account/DisownSignInPage.tsx";
import { VerifyEmailPage } from "./pages/account/VerifyEmailPage.tsx";
import { AUTHORIZE_PREFIX, AuthorizePage } from "./pages/authorize/AuthorizePage.tsx";
import { BrowserPage } from "./pages/BrowserPage.tsx";
import { ExtensionConnectPage } from "./pages/extension/ExtensionConnectPage.tsx";
import { HomePage } from "./pages/HomePage.tsx";
import { LoginPage } from "./pages/LoginPage.tsx";
import { NotFoundPage } from "./pages/NotFoundPage.tsx";
import { RegisterPage } from "./pages/RegisterPage.tsx";
import { useLocation } from "./router.tsx";

/** The route table. Unknown paths get a not-found page (the server falls back to index.html). */
export function App(): ReactNode {
  const { pathname } = useLocation();
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path.startsWith(AUTHORIZE_PREFIX)) return <AuthorizePage key={path} uid={path.slice(AUTHORIZE_PREFIX.length)} />;
  if (path === "/admin" || path.startsWith("/admin/")) return <AdminPage />;
  switch (path) {
    case "/":
      return <HomePage />;
    case "/login":
      return <LoginPage />;
    case "/register":
      return <RegisterPage />;
    case "/browser":
      return <BrowserPage />;
    case "/verify-email":
      return <VerifyEmailPage />;
    case "/reset-password":
      return <ResetPasswordPage />;
    case "/disown-sign-in":
      return <DisownSignInPage />;
    case "/accept-invitation":
      return <AcceptInvitationPage />;
    case "/forgot-password":
      return <ForgotPasswordPage />;
    case "/account":
      return <AccountPage />;
    case "/extension/connect":
      return <ExtensionConnectPage />;
    default:
      return <NotFoundPage />;
  }
}
