/**
 * `npm run dev`: the development loop, in dev OTP mode. The server runs from its TypeScript sources
 * under `node --watch` (no build; it restarts when a file it loaded changes) on PORT (8080, as with
 * `npm start`, gRPC included). The web client runs on Vite's dev server at DEV_WEB_PORT (5173), with
 * hot reload, forwarding API and Connect calls to the server. The server also serves the built client
 * at `/`, built once here when there is none. Ctrl-C (or SIGTERM) stops both.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const vite = join(root, "node_modules/vite/bin/vite.js");
const web = join(root, "apps/web");
const port = process.env.PORT ?? "8080";
const webPort = process.env.DEV_WEB_PORT ?? "5173";
const host = process.env.HOST ?? "127.0.0.1";

if (!existsSync(join(root, "apps/server/dist/web/index.html"))) {
  const built = spawnSync(process.execPath, [vite, "build"], { cwd: web, stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const env = { ...process.env, PORT: port, APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true", NEXT_PUBLIC_DEV_OTP_ENABLED: "true" };
const children: ChildProcess[] = [
  spawn(process.execPath, ["--watch", "--conditions=@gatehouse/source", join(root, "apps/server/bin/gatehouse.js"), "serve"], {
    cwd: root,
    env,
    stdio: "inherit",
  }),
  // The Vite config forwards to the server's PORT.
  spawn(process.execPath, [vite, "--host", host, "--port", webPort, "--strictPort"], { cwd: web, env, stdio: "inherit" }),
];

function stop(code: number): void {
  if (process.exitCode !== undefined) return;
  process.exitCode = code;
  for (const child of children) child.kill("SIGTERM");
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
// One of them ending on its own ends the loop: half a dev setup only confuses.
for (const child of children) child.on("exit", (code) => stop(code ?? 1));
