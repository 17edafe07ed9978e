/**
 * What other services pay to trust a Gatehouse user: access JWT verifications per second in @gatehouse/verify (in
 * this process, the key set fetched once from the real server and cached), and POST /oauth2/introspect through the
 * real server for an opaque token and for a JWT, next to check-url in the same run, on SQLite.
 */
import { join } from "node:path";
import { createVerifier } from "@gatehouse/verify";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { sized, table, type Figure, type Row } from "../figure.ts";
import { benchEngine, CHEAP_ENV, seedFixture } from "../fixture.ts";
import { runLoad, summariseRuns } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { checkUrlRequests, serverEnv, withServer } from "../server.ts";
import { fmt } from "../stats.ts";

const ISSUER = "https://id.bench.test";
const AUDIENCE = "https://service.bench.test";
const TOKEN_ENV = { PUBLIC_URL: ISSUER, INTROSPECTIONS_PER_IP_PER_MINUTE: "100000000" };

export const accessTokens: Figure = {
  name: "access-tokens",
  title: "access JWT verification and introspection",
  async run(context) {
    const { runs, durationS, verifySeconds } = sized(context, { runs: 3, durationS: 5, verifySeconds: 3 }, { runs: 1, durationS: 1, verifySeconds: 0.2 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    const fixture = await seedFixture({ databaseUrl, policyEntries: 1000 });
    const engine = await benchEngine(databaseUrl, { ...CHEAP_ENV, ...TOKEN_ENV });
    let seeded: { clientId: string; clientSecret: string; accessJwt: string };
    try {
      const { tokens } = engine.gatehouse;
      await tokens.ensureSigningKey();
      const client = await tokens.createResourceServer(SYSTEM_ACTOR, "Bench service", AUDIENCE);
      const { accessJwt } = await tokens.issueAccessJwt(await engine.gatehouse.authenticate(fixture.accessToken), AUDIENCE);
      seeded = { ...client, accessJwt };
    } finally {
      await engine.close();
    }
    const basic = `Basic ${Buffer.from(`${seeded.clientId}:${seeded.clientSecret}`).toString("base64")}`;
    const introspect = (token: string): HttpRequestSpec[] => [
      {
        method: "POST",
        path: "/oauth2/introspect",
        headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      },
    ];
    return withServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...TOKEN_ENV } }, async (server) => {
      const verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: `${server.url}/.well-known/jwks.json` });
      await verifier.verify(seeded.accessJwt);
      const verifyRuns: number[] = [];
      for (let run = 0; run < runs; run++) {
        let count = 0;
        const start = performance.now();
        while (performance.now() - start < verifySeconds * 1000) {
          await verifier.verify(seeded.accessJwt);
          count++;
        }
        verifyRuns.push(count / ((performance.now() - start) / 1000));
      }
      const verifyRate = verifyRuns.toSorted((a, b) => a - b)[Math.floor(verifyRuns.length / 2)]!;
      context.log(`verifier: ${verifyRate.toFixed(0)} verifications/s`);

      const load = (requests: HttpRequestSpec[]) => runLoad(context.root, { kind: "load", url: server.url, connections: 10, duration: durationS, requests });
      await load(checkUrlRequests(fixture));
      const points = [];
      for (const [name, requests] of [
        ["POST /api/browser/check-url, 1,000-entry policy", checkUrlRequests(fixture)],
        ["POST /oauth2/introspect, opaque access token", introspect(fixture.accessToken)],
        ["POST /oauth2/introspect, access JWT", introspect(seeded.accessJwt)],
      ] as const) {
        const results = [];
        for (let run = 0; run < runs; run++) results.push(await load([...requests]));
        points.push({ name, ...summariseRuns(name, results) });
        context.log(`${name}: ${points.at(-1)!.rps.toFixed(0)} req/s`);
      }
      const [, opaque, jwt] = points as [(typeof points)[0], (typeof points)[0], (typeof points)[0]];
      const rows: Row[] = [
        {
          measurement: "Access JWT verifications in @gatehouse/verify (one process, key set cached)",
          figure: `${fmt(verifyRate)} /s`,
          goal: "for scale",
          result: "—",
        },
        {
          measurement: "Introspection of an opaque access token (SQLite)",
          figure: `${fmt(opaque.rps)} req/s (p50 ${fmt(opaque.p50Ms, 2)} ms, p99 ${fmt(opaque.p99Ms, 2)} ms)`,
          goal: "for scale",
          result: "—",
        },
        {
          measurement: "Introspection of an access JWT (SQLite)",
          figure: `${fmt(jwt.rps)} req/s (p50 ${fmt(jwt.p50Ms, 2)} ms, p99 ${fmt(jwt.p99Ms, 2)} ms)`,
          goal: "for scale",
          result: "—",
        },
      ];
      const details = [
        `The verifier: one JWT verified again and again for ${verifySeconds} s per run in this process (EdDSA signature, claims), ${runs} run(s), median. ` +
          `Introspection: 10 keep-alive connections, ${runs} run(s) of ${durationS} s per point after a check-url warm-up, medians; every call checks the ` +
          "client's secret and takes a unit of its per-IP limit (a database write) before it reads the session.",
        "",
        table(
          ["Endpoint", "req/s", "p50 ms", "p99 ms"],
          points.map((point) => [point.name, fmt(point.rps), fmt(point.p50Ms, 2), fmt(point.p99Ms, 2)]),
        ),
      ].join("\n");
      return { rows, details, data: { verifyRuns, points } };
    });
  },
};
