import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/**
 * The most of a body answered unread that is read and dropped after the answer so the connection can carry
 * the next request, as Go's net/http does (its 256 KiB). A larger remainder, or one of unknown length, ends
 * the connection instead: reading megabytes only to keep a connection costs more than a new connection.
 */
export const DRAIN_MAX_BYTES = 256 * 1024;
/** How long that remainder may take to arrive; past it the connection is ended as for a larger one. */
const DRAIN_MAX_MS = 2_000;
/**
 * How long a connection ended with its body unread stays open after its answer: time for the client to read
 * the answer before the close resets the connection (Go's rstAvoidanceDelay).
 */
export const LINGER_MS = 500;

/** The body is still arriving and more of it may come than is worth draining: the answer ends the connection. */
export function tooLargeToDrain(req: IncomingMessage): boolean {
  if (req.complete) return false;
  // Chunked: its length is unknown until its end.
  if (req.headers["transfer-encoding"] !== undefined) return true;
  return Number(req.headers["content-length"] ?? 0) > DRAIN_MAX_BYTES;
}

/**
 * Makes every later close of `socket` a lingering close: FIN after what was written, nothing more read (the
 * kernel's windows fill and the client's upload stalls, costing neither side CPU), and the socket closed
 * LINGER_MS later. Node's HTTP/1.1 server closes a `Connection: close` socket as soon as its answer is written;
 * with the client's body still arriving that close makes the kernel send RST, which can reach the client
 * before it has read its answer (a client still writing sees the reset first). A close for an error is at once.
 */
export function closeLingering(socket: Socket): void {
  const destroy = socket.destroy.bind(socket);
  let closeAt: NodeJS.Timeout | undefined;
  socket.destroy = (error?: Error) => {
    if (error !== undefined) {
      clearTimeout(closeAt);
      return destroy(error);
    }
    if (closeAt === undefined) {
      socket.end();
      socket.pause();
      // Unref'd: a lingering connection never holds up a shutdown; the listener's close waits for it anyway.
      closeAt = setTimeout(() => destroy(), LINGER_MS).unref();
    }
    return socket;
  };
}

/**
 * Reads and drops the rest of a body (at most DRAIN_MAX_BYTES) the handler answered unread, so the client,
 * which may still be writing it, gets the answer already sent and the connection stays usable. A remainder
 * still arriving after DRAIN_MAX_MS ends the connection, lingering.
 */
export function drainRefusedBody(req: IncomingMessage, socket: Socket): void {
  const timer = setTimeout(() => {
    closeLingering(socket);
    socket.destroy();
  }, DRAIN_MAX_MS).unref();
  const stop = () => clearTimeout(timer);
  req.once("end", stop);
  req.once("close", stop);
  req.resume();
}
