/**
 * A relying party's front channel against the real server, without a browser: cookies kept per name,
 * redirects followed by hand until one leaves the server (the RP's callback) or reaches the web client's
 * /authorize page, and the interaction finished with a Gatehouse access token as that page does.
 */
import { createServer } from "node:net";
import * as oidc from "openid-client";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class CookieBrowser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";", 1);
      const at = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until one leaves the server (the RP's callback), reaches the web client's /authorize page, or a page answers. */
  async follow(url: string): Promise<{ url: string; response: Response | null }> {
    let current = url;
    for (let hop = 0; hop < 10; hop += 1) {
      if (!current.startsWith("http://127.0.0.1") || new URL(current).pathname.startsWith("/authorize/")) return { url: current, response: null };
      const response = await this.request(current);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null) return { url: current, response };
      current = new URL(location, current).toString();
    }
    throw new Error("too many redirects");
  }
}

export interface CodeFlow {
  readonly browser: CookieBrowser;
  readonly verifier: string;
  readonly state: string;
  /** Where the authorization request's redirects ended: the web client's /authorize page, or the RP's redirect URI with an error. */
  readonly landedAt: string;
}

export async function startCodeFlow(config: oidc.Configuration, redirectUri: string, extra: Record<string, string> = {}): Promise<CodeFlow> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...extra,
  });
  const browser = new CookieBrowser();
  const { url: landedAt } = await browser.follow(url.toString());
  return { browser, verifier, state, landedAt };
}

/** Finishes the interaction from `accessToken`'s Gatehouse session (consenting when asked) and exchanges the code. */
export async function finishCodeFlow(
  config: oidc.Configuration,
  flow: CodeFlow,
  accessToken: string,
): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers> {
  const landed = new URL(flow.landedAt);
  const interaction = `${landed.origin}${landed.pathname.replace(/^\/authorize\//, "/oidc/interaction/")}`;
  const post = (consent: boolean) =>
    flow.browser.request(interaction, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ consent }),
    });
  let answer = await post(false);
  if (answer.status === 409) answer = await post(true);
  if (answer.status !== 200) throw new Error(`interaction answered ${answer.status}: ${await answer.text()}`);
  const { redirect_to } = (await answer.json()) as { redirect_to: string };
  const { url } = await flow.browser.follow(redirect_to);
  return oidc.authorizationCodeGrant(config, new URL(url), { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
}
