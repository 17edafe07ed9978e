import { Code, ConnectError } from "@connectrpc/connect";
import { MIGRATION_NAMES } from "@gatehouse/adapters-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, clientsFor, type Clients } from "./support/clients.ts";
import {
  DEV_ENV,
  runCli,
  runCliProcess,
  seedOrgAndMember,
  startServerProcess,
  tempSqliteDatabase,
  type ServerProcess,
  type TestDatabase,
} from "./support/server-process.ts";
import { stepUpWithNewApp } from "./support/step-up.ts";

const PASSWORD = "correct horse battery";
const POLICY = {
  access_control: {
    allowed_domains: ["docs.example.com", "*.corp.example"],
    blocked_domains: ["*.evil.com", "10.0.0.1"],
    default_action: "deny",
    wildcard_supported: true,
  },
  action_restrictions: { allowed_actions: ["navigate", "download", "upload"], read_only_mode: true },
};

describe("browser policy over HTTP and Connect", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess;
  let api: Clients;
  let orgId: string;
  let accessToken: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl };
    ({ orgId } = await seedOrgAndMember(env, "ada@example.com", PASSWORD));
    expect((await runCli(["policy", "set", orgId, "--json", JSON.stringify(POLICY)], env)).status).toBe(0);
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env)).status).toBe(
      0,
    );
    server = await startServerProcess(env);
    api = clientsFor(server.url);
    const outcome = await api.auth.login({ email: "ada@example.com", password: PASSWORD, orgId });
    if (outcome.result.case !== "tokens") throw new Error("expected tokens");
    accessToken = outcome.result.value.accessToken;
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  const checkUrl = (body: unknown, init: RequestInit = {}) =>
    fetch(`${server.url}/api/browser/check-url`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...init,
    });

  it("GET /api/browser/policy returns only access_control and action_restrictions, snake_case", async () => {
    const response = await fetch(`${server.url}/api/browser/policy?org_id=${orgId}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      access_control: { ...POLICY.access_control, allowed_domains: ["docs.example.com", "*.corp.example"] },
      action_restrictions: POLICY.action_restrictions,
    });
  });

  it("gatehouse browser chrome-policy prints the fleet's managed policy: the extension force-installed for this org and server", async () => {
    const result = await runCli(["browser", "chrome-policy", orgId, "--server-url", "https://gatehouse.example.com"], env);
    expect(result.status).toBe(0);
    const extensions = result.json["ExtensionSettings"] as Record<string, { installation_mode: string }>;
    const [id] = Object.keys(extensions);
    expect(extensions[id!]!.installation_mode).toBe("force_installed");
    expect(result.json["3rdparty"]).toEqual({ extensions: { [id!]: { serverUrl: "https://gatehouse.example.com", org: orgId } } });
    // POLICY allows downloads: the global download block is not added.
    expect(result.json).not.toHaveProperty("DownloadRestrictions");
    expect((await runCli(["browser", "chrome-policy", orgId], env)).status).toBe(2);
    expect((await runCli(["browser", "chrome-policy", orgId, "--server-url", "http://gatehouse.example.com"], env)).status).toBe(2);
  });

  it("GET /api/browser/extension-rules: the core's rules and the action restrictions, with the policy's version as ETag; 304 when unchanged", async () => {
    const url = `${server.url}/api/browser/extension-rules?org_id=${orgId}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(response.status).toBe(200);
    const etag = response.headers.get("etag")!;
    const body = (await response.json()) as {
      version: number;
      rules: { id: number; action: { type: string }; condition: { urlFilter?: string; requestDomains?: string[] } }[];
      needs_navigation_check: boolean;
      action_restrictions: unknown;
      grace_minutes: number;
    };
    // The grace is an org setting outside the policy's version: the tag names both.
    expect(etag).toBe(`"${body.version}.5"`);
    expect(body.grace_minutes).toBe(5);
    expect(body.needs_navigation_check).toBe(false);
    expect(body.action_restrictions).toEqual({ allowed_actions: POLICY.action_restrictions.allowed_actions, read_only_mode: true });
    expect(body.rules.map((rule) => rule.id)).toEqual(body.rules.map((_, i) => i + 1));
    expect(body.rules).toContainEqual(
      expect.objectContaining({ action: { type: "allow" }, condition: expect.objectContaining({ urlFilter: "|https://docs.example.com^" }) }),
    );
    expect(body.rules).toContainEqual(
      expect.objectContaining({ action: { type: "allow" }, condition: expect.objectContaining({ requestDomains: ["corp.example"] }) }),
    );
    const again = await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect((await fetch(url)).status).toBe(401);
    // The extension names its version on every poll (recorded for the admin's list); a malformed one is refused.
    expect((await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, "x-gatehouse-extension": "0.1.0" } })).status).toBe(200);
    const refused = await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, "x-gatehouse-extension": "x".repeat(33) } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { kind: "invalid_argument", field: "x-gatehouse-extension" } });
    expect((await fetch(`${server.url}/api/browser/extension-rules?org_id=not-my-org`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(
      403,
    );
  });

  it.each([
    ["https://docs.example.com/guide", true, undefined, "https://docs.example.com/guide"],
    ["https://a.b.corp.example/x", true, undefined, "https://a.b.corp.example/x"],
    ["https://DOCS.example.com.", true, undefined, "https://docs.example.com./"],
    ["https://evil.com/", false, "blocked", "https://evil.com/"],
    ["https://docs.evil.com@evil.com/", false, "credentials_in_url", "https://docs.evil.com@evil.com/"],
    ["https://0x0a.0.0.1/", false, "blocked", "https://10.0.0.1/"],
    ["https://news.example.org/", false, "not_allowed", "https://news.example.org/"],
    ["javascript:alert(1)", false, "unsupported_scheme", "javascript:alert(1)"],
    ["not a url", false, "invalid_url", undefined],
  ])("POST /api/browser/check-url %s → allowed=%s %s", async (url, allowed, reasonCode, canonical) => {
    const response = await checkUrl({ url, org_id: orgId });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.allowed).toBe(allowed);
    expect(body.reason_code).toBe(reasonCode);
    expect(body.canonical_url).toBe(canonical);
    if (!allowed) expect(typeof body.reason).toBe("string");
    else expect(body.reason).toBeUndefined();
  });

  it("reasons never echo the raw input", async () => {
    const body = (await (await checkUrl({ url: "https://evil.com/<script>", org_id: orgId })).json()) as { reason: string };
    expect(body.reason).toBe("Your organization blocks evil.com.");
  });

  it("JSON answers, errors and /healthz included, state their length: a client finds their end without chunked decoding", async () => {
    const answers = await Promise.all([
      fetch(`${server.url}/api/browser/policy?org_id=${orgId}`, { headers: { authorization: `Bearer ${accessToken}` } }),
      checkUrl({ url: "https://docs.example.com/", org_id: orgId }),
      fetch(`${server.url}/api/browser/policy?org_id=${orgId}`),
      fetch(`${server.url}/healthz`),
      fetch(`${server.url}/api/none`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 200, 404]);
    for (const answer of answers) expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(await answer.text())));
  });

  it("GET /api/browser/org gives a member the org's name and slug; the error body carries kind and field", async () => {
    const org = await fetch(`${server.url}/api/browser/org?org_id=${orgId}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(org.status).toBe(200);
    expect(await org.json()).toEqual({ org_id: orgId, name: "Acme", slug: "acme", require_browser_extension: false });
    const missing = await checkUrl({ org_id: orgId });
    expect(await missing.json()).toEqual({ error: { code: "invalid_argument", message: "url: is required", kind: "invalid_argument", field: "url" } });
    const other = await fetch(`${server.url}/api/browser/org?org_id=00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { kind: string } }).error.kind).toBe("permission_denied");
  });

  describe("bad requests get 4xx with the error body, never 5xx", () => {
    it.each([
      ["no token", () => checkUrl({ url: "https://a.com", org_id: "x" }, { headers: { "content-type": "application/json" } }), 401, "unauthenticated"],
      [
        "forged token",
        () => checkUrl({ url: "https://a.com", org_id: "x" }, { headers: { "content-type": "application/json", authorization: "Bearer gh_at_nope" } }),
        401,
        "unauthenticated",
      ],
      ["malformed JSON", () => checkUrl("{not json"), 400, "invalid_argument"],
      ["JSON array", () => checkUrl("[]"), 400, "invalid_argument"],
      ["missing url", () => checkUrl({ org_id: orgId }), 400, "invalid_argument"],
      ["url not a string", () => checkUrl({ url: 42, org_id: orgId }), 400, "invalid_argument"],
      ["empty url", () => checkUrl({ url: "  ", org_id: orgId }), 400, "invalid_argument"],
      ["missing org_id", () => checkUrl({ url: "https://a.com" }), 400, "invalid_argument"],
      [
        "wrong content type",
        () =>
          checkUrl(JSON.stringify({ url: "https://a.com", org_id: orgId }), {
            headers: { "content-type": "text/plain", authorization: `Bearer ${accessToken}` },
          }),
        400,
        "invalid_argument",
      ],
      ["huge body", () => checkUrl({ url: `https://a.com/${"x".repeat(100_000)}`, org_id: orgId }), 413, "resource_exhausted"],
      [
        // Refused while it is read, not unread from its declared length: the 413 must still be written.
        "huge body, chunked with no content-length",
        () =>
          fetch(`${server.url}/api/browser/check-url`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
            body: new Blob([JSON.stringify({ url: `https://a.com/${"x".repeat(100_000)}`, org_id: orgId })]).stream(),
            duplex: "half",
          } as RequestInit),
        413,
        "resource_exhausted",
      ],
      ["another org", () => checkUrl({ url: "https://a.com", org_id: "00000000-0000-4000-8000-000000000000" }), 403, "permission_denied"],
      ["GET on check-url", () => fetch(`${server.url}/api/browser/check-url`, { headers: { authorization: `Bearer ${accessToken}` } }), 405, "unimplemented"],
      [
        "policy without org_id",
        () => fetch(`${server.url}/api/browser/policy`, { headers: { authorization: `Bearer ${accessToken}` } }),
        400,
        "invalid_argument",
      ],
      ["policy without token", () => fetch(`${server.url}/api/browser/policy?org_id=${orgId}`), 401, "unauthenticated"],
    ])("%s → %i %s", async (_name, request, status, code) => {
      const response = await request();
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(0);
    });
  });

  it("BrowserService over Connect gives the same answers", async () => {
    const policy = await api.browser.getBrowserPolicy({ orgId }, bearer(accessToken));
    expect(policy.actionRestrictions?.readOnlyMode).toBe(true);
    const denied = await api.browser.checkUrlAccess({ orgId, url: "https://evil.com" }, bearer(accessToken));
    expect(denied).toMatchObject({ allowed: false, reasonCode: "blocked", canonicalUrl: "https://evil.com/" });
    const allowed = await api.browser.checkUrlAccess({ orgId, url: "https://docs.example.com" }, bearer(accessToken));
    expect(allowed).toMatchObject({ allowed: true, canonicalUrl: "https://docs.example.com/" });
    expect(allowed.reason).toBeUndefined();
  });

  it("an org admin updates the policy; a bad entry refuses the whole update with a message per entry", async () => {
    expect((await runCli(["user", "create", "admin@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    expect((await runCli(["member", "add", orgId, "admin@example.com", "--role", "admin"], env)).status).toBe(0);
    const login = await api.auth.login({ email: "admin@example.com", password: PASSWORD, orgId });
    if (login.result.case !== "tokens") throw new Error("expected tokens");
    const adminAuth = bearer(await stepUpWithNewApp(api, login.result.value.accessToken, PASSWORD));
    const bad = {
      orgId,
      policy: {
        accessControl: {
          allowedDomains: ["ok.example.com", ".bad.com"],
          blockedDomains: ["*.10.0.0.1", "a/b"],
          defaultAction: "maybe",
          wildcardSupported: true,
        },
        actionRestrictions: { allowedActions: ["navigate", "print"], readOnlyMode: false },
      },
    };
    const error = await api.admin.updateOrgBrowserPolicy(bad, adminAuth).then(
      () => null,
      (e: unknown) => ConnectError.from(e),
    );
    expect(error?.code).toBe(Code.InvalidArgument);
    expect((await api.admin.getOrgBrowserPolicy({ orgId }, adminAuth)).policy?.accessControl?.allowedDomains).toEqual(["docs.example.com", "*.corp.example"]);

    const updated = await api.admin.updateOrgBrowserPolicy(
      {
        orgId,
        policy: {
          accessControl: { allowedDomains: [" News.Example.ORG. "], blockedDomains: [], defaultAction: "deny", wildcardSupported: false },
          actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
        },
      },
      adminAuth,
    );
    expect(updated.policy?.accessControl?.allowedDomains).toEqual(["news.example.org"]);
    const decision = await api.browser.checkUrlAccess({ orgId, url: "https://news.example.org/today" }, bearer(accessToken));
    expect(decision.allowed).toBe(true);
  });
});

describe("CLI", () => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(() => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
  });

  afterAll(() => db?.dispose());

  it("migrate prints the applied migrations as JSON", async () => {
    const result = await runCli(["migrate"], env);
    expect(result.status).toBe(0);
    expect(result.json).toEqual({
      applied: MIGRATION_NAMES,
    });
    expect((await runCli(["migrate"], env)).json).toEqual({ applied: [] });
  });

  it("walks through org, user, member, settings and policy, one JSON object per command", async () => {
    const org = await runCli(["org", "create", "Acme"], env);
    expect(org.json.org_id).toMatch(/^[0-9a-f-]{36}$/);
    const orgId = String(org.json.org_id);
    const user = await runCli(["user", "create", "ada@example.com", "--password-stdin"], env, `${PASSWORD}\n`);
    expect(user.status).toBe(0);
    expect((await runCli(["member", "add", orgId, "ada@example.com", "--role", "admin"], env)).json).toEqual({
      org_id: orgId,
      user_id: user.json.user_id,
      role: "admin",
      status: "added",
    });
    expect((await runCli(["org", "settings", orgId], env)).json).toEqual({
      require_mfa_new_device: true,
      require_mfa_untrusted_device: true,
      trust_device_after_mfa: true,
      trust_ttl_days: 30,
      allowed_factors: ["sms", "totp", "webauthn", "recovery_code"],
      require_phishing_resistant: false,
      step_up_max_age_minutes: 15,
      passkey_sign_in: true,
      access_jwt_audience: "",
      extension_grace_minutes: 5,
      require_browser_extension: false,
      enforcement_reporting: "host_only",
    });
    expect((await runCli(["org", "settings", orgId, "--json", '{"extension_grace_minutes": 1441}'], env)).stderr).toContain("extension_grace_minutes");
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_browser_extension": "yes"}'], env)).stderr).toContain("require_browser_extension");
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_browser_extension": true}'], env)).json.require_browser_extension).toBe(true);
    expect((await runCli(["org", "settings", orgId, "--json", '{"enforcement_reporting": "all"}'], env)).stderr).toContain("enforcement_reporting");
    expect((await runCli(["org", "settings", orgId, "--json", '{"enforcement_reporting": "full"}'], env)).json.enforcement_reporting).toBe("full");
    expect((await runCli(["org", "settings", orgId, "--json", '{"trust_ttl_days": 7}'], env)).json.trust_ttl_days).toBe(7);
    expect((await runCli(["platform", "settings", "--json", '{"mfa_always": true}'], env)).json).toEqual({
      mfa_always: true,
      device_trust_enabled: true,
      max_trust_ttl_days: 90,
    });
    expect((await runCli(["policy", "set", orgId, "--json", JSON.stringify(POLICY)], env)).json).toEqual(POLICY);
    expect((await runCli(["policy", "get", orgId], env)).json).toEqual(POLICY);
  });

  it("runs as an executable through its launcher (how npm start runs the server)", () => {
    const result = runCliProcess(["org", "create", "Launcher"], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.json).toEqual({ org_id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: "launcher" });
  });

  it.each([
    [["nonsense"], 2, /unknown command/],
    [[], 2, /usage: gatehouse/],
    [["org", "create"], 2, /missing <name>/],
    [["user", "create", "x@example.com"], 2, /give --password-stdin/],
    // A password on the command line would be readable by every local user in the process list.
    [["user", "create", "x@example.com", "--password", PASSWORD], 2, /password/],
    [["user", "create", "x@example.com", "--password-stdin", "--password", PASSWORD], 2, /password/],
    [["member", "add", "00000000-0000-4000-8000-000000000000", "x@example.com"], 1, /organization not found/],
    [["org", "settings", "x", "--json", "{"], 2, /not valid JSON/],
    [["platform", "settings", "--json", '{"mfa_alwayz": true}'], 1, /mfa_alwayz: unknown key/],
    [["platform", "settings", "--json", '{"mfa_always": "yes"}'], 1, /mfa_always: must be true or false/],
    [["policy", "set", "x", "--json", '{"access_control": {}}'], 1, /access_control\.allowed_domains: is required|action_restrictions/],
    [["org", "create", "x", "--bogus"], 2, /bogus/],
  ])("refuses %j with exit %i and a clear message", async (args, status, message) => {
    const result = await runCli(args, env);
    expect(result.status).toBe(status);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("org create takes --slug and prints it; without one the slug comes from the name", async () => {
    const chosen = await runCli(["org", "create", "Gamma Industries", "--slug", "gamma"], env);
    expect(chosen.json).toEqual({ org_id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: "gamma" });
    expect((await runCli(["org", "create", "Delta Corp."], env)).json.slug).toBe("delta-corp");
    const taken = await runCli(["org", "create", "Other", "--slug", "gamma"], env);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/slug: is taken/);
    const bad = await runCli(["org", "create", "Other", "--slug", "Not A Slug"], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/slug: must be 2 to 63 lower-case letters/);
  });

  it("lists every bad policy entry at once", async () => {
    const orgId = String((await runCli(["org", "create", "Beta"], env)).json.org_id);
    const bad = { ...POLICY, access_control: { ...POLICY.access_control, blocked_domains: ["*.10.0.0.1", "evil.com/path", "ok.com"] } };
    const result = await runCli(["policy", "set", orgId, "--json", JSON.stringify(bad)], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('"*.10.0.0.1"');
    expect(result.stderr).toContain('"evil.com/path"');
    expect(result.stderr).not.toContain('"ok.com"');
  });
});
