/**
 * Metrics, reflection and log settings, read with config.ts's own validators so every problem
 * is reported with the others.
 */
export interface ObservabilityConfig {
  /** METRICS_PORT: Prometheus metrics on their own listener; undefined (the default) serves none. */
  readonly metricsPort: number | undefined;
  /** METRICS_HOST: loopback by default, so metrics are never public by accident. */
  readonly metricsHost: string;
  /** GRPC_REFLECTION: gRPC server reflection (v1 and v1alpha) on the main port; on by default outside production only (it lists every admin method). */
  readonly grpcReflection: boolean;
  /** LOG_FORMAT: `auto` is pretty on a terminal outside production, JSON everywhere else. */
  readonly logFormat: "auto" | "json" | "pretty";
  /** LOG_REQUESTS: one info line per request (method, path, code, duration); on by default outside production. */
  readonly logRequests: boolean;
}

interface Readers {
  text(name: string): string | undefined;
  bool(name: string, fallback: boolean): boolean;
  int(name: string, fallback: number, min: number, max: number): number;
}

const LOG_FORMATS = ["auto", "json", "pretty"] as const;

export function readObservability(read: Readers, problems: string[], production: boolean): ObservabilityConfig {
  const logFormat = read.text("LOG_FORMAT")?.toLowerCase() ?? "auto";
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) problems.push(`LOG_FORMAT must be one of ${LOG_FORMATS.join(", ")}`);
  return {
    metricsPort: read.text("METRICS_PORT") === undefined ? undefined : read.int("METRICS_PORT", 0, 0, 65535),
    metricsHost: read.text("METRICS_HOST") ?? "127.0.0.1",
    grpcReflection: read.bool("GRPC_REFLECTION", !production),
    logFormat: (LOG_FORMATS as readonly string[]).includes(logFormat) ? (logFormat as ObservabilityConfig["logFormat"]) : "auto",
    logRequests: read.bool("LOG_REQUESTS", !production),
  };
}
