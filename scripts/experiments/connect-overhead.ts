/**
 * What Connect's unary protocol costs per call over the network, against a plain handler doing the same
 * work: one keep-alive connection, one call at a time, the client in a child process (as a browser or a
 * service would be). Both servers answer `{"otp": <challengeId>}` to a JSON POST, through
 * `connectNodeAdapter` with gatehouse.v1.DevService, or through a bare `node:http` handler that reads the
 * body and writes the answer. The quoted figure behind README's "What is left" (the MFA flow makes three
 * such calls).
 *
 *   node --conditions=@gatehouse/source scripts/experiments/connect-overhead.ts
 */
import { fork } from "node:child_process";
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { DevService } from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";

const CALLS = 5000;
const ROUNDS = 5;
const PATH = "/gatehouse.v1.DevService/GetOTP";
const BODY = JSON.stringify({ challengeId: "challenge-1" });

if (process.argv[2] === "client") {
  const ports = JSON.parse(process.argv[3]!) as Record<string, number>;
  const agents = new Map(Object.keys(ports).map((name) => [name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const call = (name: string) =>
    new Promise<void>((resolve, reject) => {
      const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) };
      const req = request({ agent: agents.get(name), host: "127.0.0.1", port: ports[name], method: "POST", path: PATH, headers }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`${name}: HTTP ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(BODY);
    });
  const perCall: Record<string, number[]> = Object.fromEntries(Object.keys(ports).map((name) => [name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const name of Object.keys(ports)) {
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) await call(name);
      // Round 0 warms both up (JIT, connection) and is not counted.
      if (round > 0) perCall[name]!.push(((performance.now() - started) * 1000) / CALLS);
    }
  }
  for (const agent of agents.values()) agent.destroy();
  process.send!(perCall);
} else {
  const connect = connectNodeAdapter({ routes: (router) => router.service(DevService, { getOTP: (req) => ({ otp: req.challengeId }) }) });
  const plain = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { challengeId } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { challengeId: string };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ otp: challengeId }));
    });
  };
  const servers = { connect: createServer(connect), plain: createServer(plain) };
  const ports: Record<string, number> = {};
  for (const [name, server] of Object.entries(servers)) {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    ports[name] = (server.address() as { port: number }).port;
  }
  const child = fork(process.argv[1]!, ["client", JSON.stringify(ports)], { execArgv: process.execArgv });
  const perCall = await new Promise<Record<string, number[]>>((resolve) => child.once("message", (message) => resolve(message as Record<string, number[]>)));
  for (const server of Object.values(servers)) server.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const connectUs = median(perCall.connect!);
  const plainUs = median(perCall.plain!);
  console.log(`one call at a time, ${CALLS} calls per round, median of ${ROUNDS} rounds (each round's mean per call):`);
  console.log(`  Connect (connectNodeAdapter): ${connectUs.toFixed(0)} µs   rounds: ${perCall.connect!.map((v) => v.toFixed(0)).join(", ")}`);
  console.log(`  plain node:http handler:      ${plainUs.toFixed(0)} µs   rounds: ${perCall.plain!.map((v) => v.toFixed(0)).join(", ")}`);
  console.log(`  Connect's own cost per call:  ${(connectUs - plainUs).toFixed(0)} µs`);
}
