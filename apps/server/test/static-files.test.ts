import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStaticFiles } from "../src/static-files.ts";
import type { WebService } from "../src/web-services-config.ts";

const INDEX = '<!doctype html><html><head><title>Gatehouse</title></head><body><div id="root"></div></body></html>';

describe("the web client's files with WEB_SERVICES", () => {
  let root: string | undefined;
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  /** Serves a client of two files with `services`; its base URL. */
  async function serve(services: readonly WebService[]): Promise<string> {
    root = mkdtempSync(join(tmpdir(), "gatehouse-static-"));
    writeFileSync(join(root, "index.html"), INDEX);
    writeFileSync(join(root, "app.js"), "console.log('</head>')");
    const files = createStaticFiles(root, services);
    server = createServer((req, res) => {
      void files(req, res).then((served) => {
        if (!served) res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("connects to its own origin only, and serves index.html as built, without any service", async () => {
    const response = await fetch(`${await serve([])}/account`);
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self';");
    expect(await response.text()).toBe(INDEX);
  });

  it("adds each service's origin to connect-src and lists the services, escaped, in index.html only", async () => {
    const services: WebService[] = [
      { name: `Billing "EU" <b>`, audience: "https://billing.example.com", method: "POST", url: "https://billing.example.com:8443/payouts" },
      { name: "Billing reads", audience: "https://billing.example.com", method: "GET", url: "https://billing.example.com:8443/invoices" },
    ];
    const base = await serve(services);
    const response = await fetch(`${base}/account`);
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self' https://billing.example.com:8443;");
    const html = await response.text();
    const content = /<meta name="gatehouse-services" content="([^"]*)" \/>/.exec(html)?.[1];
    expect(content).not.toContain("<");
    const decoded = content!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    expect(JSON.parse(decoded)).toEqual(services);
    expect(await (await fetch(`${base}/app.js`)).text()).toBe("console.log('</head>')");
  });
});
