/**
 * A stolen account handled with the command line alone, against a real server on SQLite: find the
 * account, end its sessions in one org, end a device's trust, sign it out everywhere, and confirm each
 * step with the listings — no admin token involved.
 */
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, clientsFor, rpcError, type Clients } from "./support/clients.ts";
import { DEV_ENV, runCli, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";
import { verifyWithDevOtp } from "./support/step-up.ts";

const PASSWORD = "correct horse battery";
const EMAIL = "ada@example.com";

describe("a stolen-account incident with the gatehouse CLI", () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let api: Clients;
  let env: Record<string, string>;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl };
    expect((await runCli(["migrate"], env)).status).toBe(0);
    server = await startServerProcess(env);
    api = clientsFor(server.url);
    acme = String((await runCli(["org", "create", "Acme", "--slug", "acme"], env)).json.org_id);
    globex = String((await runCli(["org", "create", "Globex"], env)).json.org_id);
    expect((await runCli(["user", "create", EMAIL, "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    // Slugs wherever an org is named.
    expect((await runCli(["member", "add", "acme", EMAIL], env)).json).toMatchObject({ status: "added", org_id: acme });
    expect((await runCli(["member", "add", "GLOBEX", EMAIL], env)).json).toMatchObject({ status: "added", org_id: globex });
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  const login = (orgId: string, fingerprint: string) => api.auth.login({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: fingerprint });

  async function signIn(orgId: string, fingerprint: string) {
    const outcome = await login(orgId, fingerprint);
    let challengeId: string;
    if (outcome.result.case === "phoneRequired") {
      ({ challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: "+15553000001" }));
    } else if (outcome.result.case === "mfaRequired") {
      challengeId = outcome.result.value.challengeId;
    } else {
      throw new Error(`unexpected sign-in outcome ${String(outcome.result.case)}`);
    }
    return verifyWithDevOtp(api, challengeId);
  }

  const stillSignedIn = (orgId: string, accessToken: string) => api.browser.getBrowserPolicy({ orgId }, bearer(accessToken));

  it("revokes the sessions in one org, then a device, then everywhere; the listings confirm each step", async () => {
    const atAcme = await signIn(acme, "laptop");
    const atGlobex = await signIn(globex, "tablet");
    expect((await login(acme, "laptop")).result.case).toBe("tokens");

    const shown = (await runCli(["user", "show", EMAIL], env)).json;
    expect(shown).toMatchObject({ email: EMAIL, phone_verified: true, disabled_at: null });
    expect(shown.phone).not.toContain("3000001");
    expect(shown.orgs).toEqual([
      { org_id: acme, slug: "acme", role: "member" },
      { org_id: globex, slug: "globex", role: "member" },
    ]);
    expect((await runCli(["user", "list"], env)).json.users).toEqual([expect.objectContaining({ email: EMAIL })]);
    type DeviceLine = { device_id: string; org_id: string; trusted: boolean };
    const devices = async () => (await runCli(["device", "list", EMAIL], env)).json.devices as DeviceLine[];
    expect((await devices()).map((d) => [d.org_id, d.trusted])).toEqual([
      [acme, true],
      [globex, true],
    ]);
    expect(((await runCli(["device", "list", EMAIL, "--org", "globex"], env)).json.devices as DeviceLine[]).map((d) => d.org_id)).toEqual([globex]);
    // What the operator needs to tell devices apart, every time ISO, and never the fingerprint.
    const listed = (await runCli(["device", "list", EMAIL], env)).json.devices as Record<string, unknown>[];
    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    for (const device of listed) {
      expect(device).toMatchObject({
        label: expect.any(String) as unknown,
        user_agent: expect.any(String) as unknown,
        last_address: expect.stringMatching(/127\.0\.0\.1|::1/) as unknown,
        trusted_until: expect.stringMatching(ISO) as unknown,
        created_at: expect.stringMatching(ISO) as unknown,
        last_seen_at: expect.stringMatching(ISO) as unknown,
      });
      expect(Object.keys(device).filter((key) => key.includes("fingerprint"))).toEqual([]);
    }
    expect(JSON.stringify(listed)).not.toMatch(/laptop|tablet/);
    type SessionLine = {
      session_id: string;
      org_id: string;
      device_id: string;
      device_label: string;
      created_at: string;
      last_seen_at: string;
      expires_at: string;
    };
    const sessions = (await runCli(["session", "list", EMAIL], env)).json.sessions as SessionLine[];
    expect(sessions.map((s) => s.org_id).sort()).toEqual([acme, acme, globex].sort());
    for (const session of sessions) {
      expect(listed.map((d) => d.device_id)).toContain(session.device_id);
      expect(session).toMatchObject({ device_label: expect.any(String) as unknown, created_at: expect.stringMatching(ISO) as unknown });
      expect(session.expires_at).toMatch(ISO);
      expect(session.last_seen_at).toMatch(ISO);
    }

    // 1. Out of Acme: its sessions end (the MFA sign-in and the trusted one), Globex is untouched.
    const userId = String(shown.user_id);
    expect((await runCli(["session", "revoke", EMAIL, "--org", "acme"], env)).json).toEqual({ user_id: userId, org_id: acme, revoked_count: 2 });
    expect((await rpcError(stillSignedIn(acme, atAcme.accessToken))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(api.auth.refresh({ refreshToken: atAcme.refreshToken }))).code).toBe(Code.Unauthenticated);
    await stillSignedIn(globex, atGlobex.accessToken);
    expect((await devices()).map((d) => [d.org_id, d.trusted])).toEqual([
      [acme, false],
      [globex, true],
    ]);

    // 2. The Globex device: its trust and its session end.
    const tablet = (await devices()).find((d) => d.org_id === globex)!;
    expect((await runCli(["device", "revoke", tablet.device_id], env)).json).toEqual({
      device_id: tablet.device_id,
      org_id: globex,
      user_id: userId,
      trust_revoked: true,
    });
    expect((await rpcError(stillSignedIn(globex, atGlobex.accessToken))).code).toBe(Code.Unauthenticated);
    expect((await devices()).map((d) => d.trusted)).toEqual([false, false]);

    // 3. Everywhere: a session the thief opened meanwhile ends too, and the next sign-ins need MFA.
    const again = await signIn(globex, "thief");
    expect((await runCli(["session", "revoke", userId], env)).json).toEqual({ user_id: userId, org_id: null, revoked_count: 1 });
    expect((await runCli(["session", "list", userId], env)).json).toEqual({ sessions: [] });
    expect((await rpcError(stillSignedIn(globex, again.accessToken))).code).toBe(Code.Unauthenticated);
    // Two sign-ins only: each sends a code, and the phone's budget is five a quarter of an hour.
    expect((await login(acme, "laptop")).result.case).toBe("mfaRequired");
    expect((await login(globex, "thief")).result.case).toBe("mfaRequired");

    const revoked = (await runCli(["audit", "list", "--org", "acme", "--kind", "session.revoked"], env)).lines;
    expect(revoked).toEqual([expect.objectContaining({ kind: "session.revoked", org_id: acme })]);

    // 4. The thief may have enrolled a factor or swapped nothing we can see: reset the factors, which also
    // unlocks the phone, so the owner's next sign-in collects a phone again.
    expect((await runCli(["factors", "reset", EMAIL, "--reason", "stolen account"], env)).json).toEqual({ reset: true });
    expect((await runCli(["factors", "list", EMAIL], env)).json).toEqual({ factors: [], recovery_codes_left: 0, phone_mask: "" });
    expect((await login(acme, "laptop")).result.case).toBe("phoneRequired");
    expect((await runCli(["audit", "list", "--user", EMAIL, "--kind", "factors.reset"], env)).lines).toEqual([
      expect.objectContaining({ kind: "factors.reset", payload: expect.objectContaining({ reason: "stolen account" }) }),
    ]);
  });
});
