/**
 * Sign in with Gatehouse (issue 48): the OpenID authorization code flow's time at the server, with the member's
 * Gatehouse session already live, next to the SMS sign-in flow's on the same server. The code flow is the relying
 * party's and the browser's requests one after another on one keep-alive connection: GET /oidc/auth (303 to the
 * interaction), GET the interaction page, POST it with the session's bearer token (the page's script), GET the
 * resume URL (303 to the callback with the code), POST /oidc/token with PKCE. The SMS flow is Login + GetOTP +
 * VerifyMFA from a new device on cheap-hash users (sign-in.ts's), so neither figure is the password hash's.
 */
import { createHash, randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { sized, table, type Figure, type Row } from "../figure.ts";
import { benchEngine, CHEAP_ENV, seedFixture } from "../fixture.ts";
import { runLoad, type FlowResult } from "../load.ts";
import { FLOWS_PER_USER } from "../load-runner.ts";
import { serverEnv, withServer } from "../server.ts";
import { fmt, median } from "../stats.ts";

const REDIRECT_URI = "https://rp.bench.test/callback";
const STEPS = ["authorize", "interaction page", "interaction post", "resume", "token"] as const;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One keep-alive HTTP/1.1 connection with a cookie jar, as a browser and its RP would hold them. */
function browserOn(baseUrl: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const cookies = new Map<string, string>();
  const send = (method: string, path: string, headers: Record<string, string> = {}, body = ""): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
      const req = request(
        new URL(path, baseUrl),
        { method, agent, headers: { ...headers, ...(cookie === "" ? {} : { cookie }), "content-length": String(Buffer.byteLength(body)) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            for (const line of res.headers["set-cookie"] ?? []) {
              const [pair] = line.split(";", 1);
              const at = pair!.indexOf("=");
              const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
              if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
              else cookies.set(name, value);
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

function expectStatus(step: string, answer: Answer, status: number): Answer {
  if (answer.status !== status) throw new Error(`${step}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
  return answer;
}

/** One whole code flow; answers each step's milliseconds. */
async function codeFlowOnce(baseUrl: string, client: { clientId: string; clientSecret: string }, accessToken: string): Promise<number[]> {
  const browser = browserOn(baseUrl);
  try {
    const verifier = randomBytes(32).toString("base64url");
    const params = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      scope: "openid email profile",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: randomBytes(8).toString("hex"),
    });
    const times: number[] = [];
    const timed = async (run: () => Promise<Answer>) => {
      const start = performance.now();
      const answer = await run();
      times.push(performance.now() - start);
      return answer;
    };
    const authorize = expectStatus("authorize", await timed(() => browser.send("GET", `/oidc/auth?${params.toString()}`)), 303);
    const interaction = String(authorize.headers.location);
    // What the web client's /authorize page reads of the interaction (the page itself is a static file).
    expectStatus("interaction page", await timed(() => browser.send("GET", interaction, { accept: "application/json" })), 200);
    const headers = { authorization: `Bearer ${accessToken}`, "content-type": "application/json" };
    const posted = expectStatus("interaction post", await timed(() => browser.send("POST", interaction, headers, "{}")), 200);
    const resumeUrl = new URL((JSON.parse(posted.body) as { redirect_to: string }).redirect_to);
    const resumed = expectStatus("resume", await timed(() => browser.send("GET", `${resumeUrl.pathname}${resumeUrl.search}`)), 303);
    const code = new URL(String(resumed.headers.location)).searchParams.get("code");
    if (code === null) throw new Error(`resume: no code in ${String(resumed.headers.location)}`);
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`;
    const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: verifier }).toString();
    const tokenHeaders = { authorization: basic, "content-type": "application/x-www-form-urlencoded" };
    expectStatus("token", await timed(() => browser.send("POST", "/oidc/token", tokenHeaders, form)), 200);
    return times;
  } finally {
    browser.close();
  }
}

export const oidcFlow: Figure = {
  name: "oidc",
  title: "Sign in with Gatehouse: the authorization code flow next to the SMS sign-in",
  async run(context) {
    const { runs, flows } = sized(context, { runs: 3, flows: 100 }, { runs: 1, flows: 2 });
    const databaseUrl = join(context.tmpDir, "oidc.sqlite");
    // One more run's worth of SMS users: the warm-up.
    const smsUsersPerRun = Math.ceil(flows / FLOWS_PER_USER);
    const fixture = await seedFixture({ databaseUrl, policyEntries: 10, cheapMfaUsers: (runs + 1) * smsUsersPerRun });
    const engine = await benchEngine(databaseUrl, CHEAP_ENV);
    let client: { clientId: string; clientSecret: string };
    try {
      const created = await engine.gatehouse.oidc.createClient(SYSTEM_ACTOR, {
        orgId: fixture.orgNoMfa,
        name: "Bench RP",
        redirectUris: [REDIRECT_URI],
        firstParty: true,
        public: false,
      });
      client = { clientId: created.clientId, clientSecret: created.clientSecret! };
    } finally {
      await engine.close();
    }
    return withServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } }, async (server) => {
      const smsFlow = (slot: number) =>
        runLoad(context.root, {
          kind: "mfa-flow",
          url: server.url,
          orgId: fixture.orgMfa,
          users: fixture.cheapMfaUsers.slice(slot * smsUsersPerRun, (slot + 1) * smsUsersPerRun),
          flows,
          flowsPerUser: FLOWS_PER_USER,
          fingerprintPrefix: `oidc-bench-${slot}`,
        });
      const codeFlows = async () => {
        const each: number[][] = [];
        for (let i = 0; i < flows; i++) each.push(await codeFlowOnce(server.url, client, fixture.accessToken));
        return each;
      };
      // Warm-up: the JIT's first compiles and the provider's first build are in neither figure.
      await smsFlow(runs);
      await codeFlows();
      const code: number[][][] = [];
      const sms: FlowResult[] = [];
      for (let run = 0; run < runs; run++) {
        // Alternating which goes first, so a neighbour's burst of load falls on both alike.
        if (run % 2 === 0) {
          code.push(await codeFlows());
          sms.push(await smsFlow(run));
        } else {
          sms.push(await smsFlow(run));
          code.push(await codeFlows());
        }
        const total = median(code.at(-1)!.map((steps) => steps.reduce((a, b) => a + b, 0)));
        context.log(`run ${run + 1}: code flow p50 ${total.toFixed(2)} ms, SMS flow p50 ${sms.at(-1)!.flowP50Ms.toFixed(2)} ms`);
      }
      const codeTotal = median(code.map((run) => median(run.map((steps) => steps.reduce((a, b) => a + b, 0)))));
      const stepMedians = STEPS.map((_, step) => median(code.map((run) => median(run.map((steps) => steps[step]!)))));
      const smsFlowMs = median(sms.map((run) => run.flowP50Ms));
      const smsSignInMs = median(sms.map((run) => run.signInP50Ms));
      const rows: Row[] = [
        {
          measurement: "OpenID authorization code flow, session live (authorize → interaction → token, 5 requests), SQLite, c = 1",
          figure: `p50 ${fmt(codeTotal, 2)} ms`,
          goal: "for scale",
          result: "—",
        },
        {
          measurement: "SMS sign-in flow on the same server (Login + GetOTP + VerifyMFA, cheap hash), c = 1",
          figure: `p50 ${fmt(smsFlowMs, 2)} ms (Login + VerifyMFA ${fmt(smsSignInMs, 2)} ms)`,
          goal: "for scale",
          result: "—",
        },
      ];
      const details = [
        `${runs} run(s) of ${flows} flows each, one after another from this process (c = 1), the two flows alternating which goes first, ` +
          "after a warm-up of each; medians of the runs' medians, client-side on loopback. The code flow's member has a live Gatehouse " +
          "session (no password, no second factor in it: that is the SMS flow's part); its client is first-party (no consent).",
        "",
        table(
          ["Code flow step", "p50 ms"],
          STEPS.map((step, i) => [step, fmt(stepMedians[i]!, 2)]),
        ),
      ].join("\n");
      return { rows, details, data: { code, sms } };
    });
  },
};
