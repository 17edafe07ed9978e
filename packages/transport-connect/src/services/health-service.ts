/**
 * The standard gRPC health service (grpc.health.v1.Health; semantics in grpc's
 * doc/health-checking.md): load balancers and `grpc-health-probe` ask it whether this server can
 * take traffic. The empty service name is the whole server; each Gatehouse service name answers
 * the same (they share the one database); any other name is NOT_FOUND (Watch: SERVICE_UNKNOWN).
 */
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { setTimeout as sleep } from "node:timers/promises";
import { Health, HealthCheckResponse_ServingStatus as Status, type HealthCheckResponse_ServingStatus } from "@gatehouse/contract/gen/grpc/health/v1/health_pb";

export interface HealthSource {
  /** True while the server can serve (database reachable, not draining). Must not throw. */
  serving(): Promise<boolean>;
  /** Aborts when the server starts shutting down: every Watch then sends NOT_SERVING and ends. */
  readonly shutdown: AbortSignal;
}

export interface HealthOptions {
  readonly source: HealthSource;
  /** Service names that report status besides the server as a whole (""). */
  readonly services: readonly string[];
  /** How often a Watch re-checks, to report changes. */
  readonly watchIntervalMs?: number | undefined;
}

/** A status cannot change unseen for longer than this on a Watch stream. */
const DEFAULT_WATCH_INTERVAL_MS = 5_000;

export function registerHealth(router: ConnectRouter, options: HealthOptions): void {
  const known = new Set(["", ...options.services]);
  const interval = options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  const statusOf = async (service: string): Promise<HealthCheckResponse_ServingStatus> => {
    if (!known.has(service)) return Status.SERVICE_UNKNOWN;
    return !options.source.shutdown.aborted && (await options.source.serving()) ? Status.SERVING : Status.NOT_SERVING;
  };

  router.service(Health, {
    async check(request) {
      const status = await statusOf(request.service);
      if (status === Status.SERVICE_UNKNOWN) throw new ConnectError(`unknown service: ${request.service}`, Code.NotFound);
      return { status };
    },
    async list() {
      const statuses: Record<string, { status: HealthCheckResponse_ServingStatus }> = {};
      for (const service of known) statuses[service] = { status: await statusOf(service) };
      return { statuses };
    },
    async *watch(request, context: HandlerContext) {
      const stop = AbortSignal.any([context.signal, options.source.shutdown]);
      let last: HealthCheckResponse_ServingStatus | undefined;
      for (;;) {
        const status = await statusOf(request.service);
        if (status !== last) yield { status };
        last = status;
        if (stop.aborted) break;
        try {
          await sleep(interval, undefined, { signal: stop });
        } catch {
          // The client went away, or the server is shutting down: the loop sends the final status.
        }
        if (context.signal.aborted) return;
      }
    },
  });
}
