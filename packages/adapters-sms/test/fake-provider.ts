import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the provider answers one request; it may hold the response (no `end`) to simulate a stall. */
export type Respond = (response: ServerResponse, request: RecordedRequest) => void;

export interface FakeProvider {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far: shows whether keep-alive connections were reused. */
  connections(): number;
  /** Runs `callback` after `ms` unless the provider is closed first. */
  later(ms: number, callback: () => void): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and an ephemeral port, recording every request it gets. */
export async function startFakeProvider(respond: Respond): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const recorded: RecordedRequest = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      respond(response, recorded);
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    later(ms, callback) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, ms);
      timers.add(timer);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Held responses and idle keep-alive sockets would otherwise keep close() waiting.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A URL on which nothing listens: a port that was just bound and released. */
export async function closedPortUrl(): Promise<string> {
  const provider = await startFakeProvider((response) => response.end());
  await provider.close();
  return provider.url;
}
