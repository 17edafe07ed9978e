import { readFile, stat } from "node:fs/promises";
import type { NodeRequest, NodeResponse } from "@gatehouse/transport-connect";
import { extname, join, normalize, resolve, sep } from "node:path";
import type { WebService } from "./web-services-config.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/**
 * Headers that make the client hard to frame or inject into; the client never embeds other sites either.
 * It connects to its own origin and to the origins of the WEB_SERVICES it calls, no other.
 */
function securityHeaders(services: readonly WebService[]): Record<string, string> {
  const origins = [...new Set(services.map((service) => new URL(service.url).origin))];
  const connect = ["'self'", ...origins].join(" ");
  return {
    "content-security-policy": `default-src 'self'; connect-src ${connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'`,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  };
}

/** The services, for the client to read from index.html (a meta tag: the CSP allows no inline script). */
function servicesMeta(services: readonly WebService[]): string {
  const json = JSON.stringify(services).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<meta name="gatehouse-services" content="${json}" />`;
}

/**
 * Serves the built web client; unknown paths without an extension get index.html so client-side
 * routes (/login, /browser) survive a reload. Paths are resolved inside `root` only.
 */
export function createStaticFiles(root: string, services: readonly WebService[] = []) {
  const base = resolve(root);
  const headers = securityHeaders(services);
  // Without services, index.html is served as built: nothing to say, and nothing to rewrite.
  const meta = services.length === 0 ? null : servicesMeta(services);
  return async (req: NodeRequest, res: NodeResponse): Promise<boolean> => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    } catch {
      return false;
    }
    const candidate = normalize(join(base, pathname));
    if (candidate !== base && !candidate.startsWith(base + sep)) return false;
    let file = candidate;
    const info = await stat(file).catch(() => null);
    if (info === null || info.isDirectory()) {
      if (extname(pathname) !== "") return false;
      file = join(base, "index.html");
      if ((await stat(file).catch(() => null)) === null) return false;
    }
    const immutable = pathname.startsWith("/assets/");
    res.writeHead(200, {
      "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      ...headers,
    });
    if (req.method === "HEAD") {
      res.end("");
      return true;
    }
    // The client is a handful of small files: reading them whole keeps one code path for HTTP/1.1 and h2.
    const body = await readFile(file);
    res.end(meta !== null && file === join(base, "index.html") ? body.toString("utf8").replace("</head>", `${meta}</head>`) : body);
    return true;
  };
}
