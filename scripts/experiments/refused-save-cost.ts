/**
 * What one policy save refused from its headers costs (past 10 saves a minute per user: 429 before the body is
 * read), with a 10-entry body and with a 200,000-entry one (2.4 MB): the server's CPU per refusal (all its
 * threads, from the scheduler's count), this process's CPU per refusal (fetch sending the body), the wall time,
 * and the statuses the client saw (0: the request failed, the answer lost). N refusals per row (default 100),
 * each on the live server as `npm run bench` runs it from the sources, alternating small and large twice.
 *
 * Usage, from the repository root: N=150 node --conditions=@gatehouse/source scripts/experiments/refused-save-cost.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { policyBody, postJson, UPDATE_POLICY_PATH } from "../../apps/server/test/support/edge-clients.ts";
import { seedAdmin } from "../bench/fixture.ts";
import { serverEnv, withServer } from "../bench/server.ts";
import { cpuMs } from "./support/process-cpu.ts";

const root = join(import.meta.dirname, "../..");
const databaseUrl = join(mkdtempSync(join(tmpdir(), "refused-save-cost-")), "gatehouse.sqlite");
const admin = await seedAdmin(databaseUrl);
const refusals = Number(process.env.N ?? 100);

await withServer({ root, env: { ...serverEnv(databaseUrl), MAX_CONNECTIONS_PER_IP: "1000" } }, async (server) => {
  const save = (body: string) =>
    postJson(`${server.url}${UPDATE_POLICY_PATH}`, admin.token, body).then(
      async (response) => (await response.text(), response.status),
      () => 0,
    );
  // Past the 10 saves a minute a user may make: every save below is refused from its headers.
  const small = policyBody(admin.orgId, 10, 1);
  for (let i = 0; i < 12; i++) await save(small);
  for (const entries of [10, 200_000, 10, 200_000]) {
    const body = policyBody(admin.orgId, entries, 2);
    const [serverBefore, clientBefore, started] = [cpuMs(String(server.pid)), process.cpuUsage(), performance.now()];
    const statuses: Record<number, number> = {};
    for (let i = 0; i < refusals; i++) {
      const status = await save(body);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    const client = process.cpuUsage(clientBefore);
    const wall = performance.now() - started;
    const perRefusal = (ms: number) => `${(ms / refusals).toFixed(2)} ms`;
    console.log(
      `${entries} entries (${(body.length / 2 ** 20).toFixed(2)} MB): server ${perRefusal(cpuMs(String(server.pid)) - serverBefore)}/refusal,`,
      `client ${perRefusal((client.user + client.system) / 1000)}, wall ${perRefusal(wall)}, statuses`,
      statuses,
    );
  }
});
