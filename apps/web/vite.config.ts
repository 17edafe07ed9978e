import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

/** Where `vite dev` forwards API and Connect calls: the server's PORT (`npm start` and `npm run dev` serve on 8080 by default). */
const devServerTarget = `http://127.0.0.1:${process.env.PORT ?? "8080"}`;

export default defineConfig({
  plugins: [react()],
  resolve: {
    // Workspace packages resolve to their TypeScript sources, as in the rest of the monorepo.
    conditions: ["@gatehouse/source", ...defaultClientConditions],
  },
  build: {
    // Shipped inside @gatehouse/server, which serves it by default.
    outDir: "../server/dist/web",
    emptyOutDir: true,
    target: "es2022",
  },
  server: {
    proxy: {
      "/api": devServerTarget,
      "/gatehouse.v1.": devServerTarget,
    },
  },
});
