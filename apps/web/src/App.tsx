import type { ReactNode } from "react";
import { BrowserPage } from "./pages/BrowserPage.tsx";
import { HomePage } from "./pages/HomePage.tsx";
import { LoginPage } from "./pages/LoginPage.tsx";
import { NotFoundPage } from "./pages/NotFoundPage.tsx";
import { RegisterPage } from "./pages/RegisterPage.tsx";
import { useLocation } from "./router.tsx";

/** The route table. Unknown paths get a not-found page (the server falls back to index.html). */
export function App(): ReactNode {
  const { pathname } = useLocation();
  switch (pathname.replace(/\/+$/, "") || "/") {
    case "/":
      return <HomePage />;
    case "/login":
      return <LoginPage />;
    case "/register":
      return <RegisterPage />;
    case "/browser":
      return <BrowserPage />;
    default:
      return <NotFoundPage />;
  }
}
