import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { createAppServices, ServicesProvider } from "./services.tsx";
import "./styles.css";

const container = document.getElementById("root");
if (container === null) throw new Error("index.html has no #root element.");

createRoot(container).render(
  <StrictMode>
    <ServicesProvider value={createAppServices(window)}>
      <App />
    </ServicesProvider>
  </StrictMode>,
);
