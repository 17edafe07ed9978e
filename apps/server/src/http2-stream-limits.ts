import { constants, type Http2Session, type ServerHttp2Stream } from "node:http2";
import type { ConnectionLimits } from "./connection-limits.ts";

/** How often a finished response looks whether its trailers are out, so the reset cannot overtake them. */
const TRAILERS_SENT_CHECK_MS = 10;

/**
 * Node's HTTP/2 server times nothing out by itself (its `timeout` counts any frame, a PING
 * included, as activity), so each session gets the limits HTTP/1.1 has: closed once it has had no
 * open stream for the keep-alive timeout, each stream cancelled when its request has not fully
 * arrived within the request timeout, and a request body still coming after the response ended is
 * stopped with RST_STREAM(NO_ERROR), as RFC 9113 §8.1 allows, instead of holding the stream open.
 */
export function applyHttp2StreamLimits(session: Http2Session, limits: ConnectionLimits): void {
  let openStreams = 0;
  let idle: NodeJS.Timeout | undefined;
  const startIdle = () => {
    idle = setTimeout(() => session.close(), limits.keepAliveTimeoutMs);
  };
  startIdle();
  session.on("stream", (stream: ServerHttp2Stream) => {
    openStreams += 1;
    clearTimeout(idle);
    const requestDeadline = setTimeout(() => {
      if (!remoteEnded(stream)) stream.close(constants.NGHTTP2_CANCEL);
    }, limits.requestTimeoutMs);
    const endRefusedBody = () => {
      if (stream.closed || remoteEnded(stream)) return;
      // 'finish' comes before the trailers (gRPC's status) are sent; END_STREAM on our side says they are.
      if (stream.state.localClose !== 1) setTimeout(endRefusedBody, TRAILERS_SENT_CHECK_MS);
      else stream.close(constants.NGHTTP2_NO_ERROR);
    };
    stream.once("finish", endRefusedBody);
    stream.once("close", () => {
      clearTimeout(requestDeadline);
      openStreams -= 1;
      if (openStreams === 0 && !session.closed && !session.destroyed) startIdle();
    });
  });
  session.once("close", () => clearTimeout(idle));
}

/** The client has sent END_STREAM: its request is complete. */
function remoteEnded(stream: ServerHttp2Stream): boolean {
  return stream.destroyed || stream.state.remoteClose === 1;
}
