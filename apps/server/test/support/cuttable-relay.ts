/**
 * A TCP relay the tests put between the server and PostgreSQL: `cut` drops every connection and
 * refuses new ones (the database is gone), `partition` drops them and accepts new ones that never
 * get an answer (a network partition), `open` restores it on the same port.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net";

export class CuttableRelay {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #target: URL;
  port = 0;
  #partitioned = false;

  constructor(target: string) {
    this.#target = new URL(target);
  }

  /** The target URL with the relay as its host. */
  url(): URL {
    return Object.assign(new URL(this.#target), { host: `127.0.0.1:${this.port}` });
  }

  async open(): Promise<void> {
    this.#server = createServer((client) => {
      if (this.#partitioned) {
        this.#sockets.add(client);
        client.on("close", () => this.#sockets.delete(client));
        client.on("error", () => client.destroy());
        return;
      }
      const upstream = connect(Number(this.#target.port || 5432), this.#target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  /** Drops every connection; new ones are accepted and hang until `heal`. */
  partition(): void {
    this.#partitioned = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  heal(): void {
    this.#partitioned = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }
}
