/**
 * What the bench's load process spends per request, autocannon against the raw-socket loop (scripts/bench/load-runner.ts),
 * each in a fresh process of `LOGINS` × c requests as the sign-in figure runs them, against a local `node:http` server that
 * answers every request at once with a Login-sized JSON body: the driver's CPU from its first request to its last answer,
 * per request, medians over `ROUNDS` processes per driver and concurrency, the drivers alternating.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/load-driver-cpu.ts
 */
import { createServer } from "node:http";
import { runNodeJson } from "../bench/load.ts";
import { runAutocannon, runSocketLoop, type HttpRequestSpec } from "../bench/load-runner.ts";
import { median } from "../bench/stats.ts";

const LOGINS = Number(process.env.LOGINS ?? 48);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const body = JSON.stringify({ email: "login@bench.test", password: "bench correct horse battery", orgId: "bench-org", deviceFingerprint: "bench-laptop" });
const request: HttpRequestSpec = { method: "POST", path: "/gatehouse.v1.AuthService/Login", headers: { "content-type": "application/json" }, body };

if (process.argv[2] === "--child") {
  const [driver, url, c] = process.argv.slice(3) as ["autocannon" | "socket-loop", string, string];
  const job = { url, connections: Number(c), amount: LOGINS * Number(c) };
  const before = process.cpuUsage();
  const result =
    driver === "autocannon" ? await runAutocannon({ kind: driver, ...job, requests: [request] }) : await runSocketLoop({ kind: driver, ...job, request });
  const { user, system } = process.cpuUsage(before);
  if (result.count !== job.amount) throw new Error(`${driver}: ${result.count} of ${job.amount} answered`);
  process.stdout.write(`${(user + system) / 1000 / job.amount}\n`);
} else {
  const answer = JSON.stringify({ tokens: { accessToken: "a".repeat(43), refreshToken: "r".repeat(43), expiresIn: 900 } });
  const server = createServer((req, res) => {
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  // The children run asynchronously: this process answers their requests meanwhile.
  for (const c of [1, 2]) {
    const ms: Record<string, number[]> = { autocannon: [], "socket-loop": [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const driver of Object.keys(ms)) {
        const args = [...process.execArgv, new URL(import.meta.url).pathname, "--child", driver, `http://127.0.0.1:${port}`, String(c)];
        ms[driver]!.push(await runNodeJson<number>(args, process.cwd()));
      }
    }
    for (const [driver, values] of Object.entries(ms))
      console.log(
        `c=${c} ${driver}: ${median(values).toFixed(3)} ms CPU per request (median of ${ROUNDS}; ${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`,
      );
  }
  server.close();
}
