import { hostname } from "node:os";
import { pino, type Logger } from "pino";
import pinoPretty from "pino-pretty";

export type LogFormat = "json" | "pretty";

/** `auto` is readable on a developer's terminal and JSON wherever a machine reads the log (pipes, files, production). */
export function resolveLogFormat(format: "auto" | LogFormat, production: boolean, stdoutIsTty: boolean): LogFormat {
  if (format !== "auto") return format;
  return stdoutIsTty && !production ? "pretty" : "json";
}

const REDACTED = "[redacted]";

/**
 * A top-level `code` is an OTP when a call site slips one in, and a process exit code or an error
 * code when the supervisor or a driver reports one: only a string of digits is a secret worth hiding.
 * A blanket redaction once turned the supervisor's `worker exited` line into `"code":"[redacted]"`.
 */
function censor(value: unknown, path: string[]): unknown {
  if (path.length === 1 && path[0] === "code" && (typeof value === "number" || value === null || (typeof value === "string" && !/\d/.test(value)))) {
    return value;
  }
  return REDACTED;
}

/**
 * Structured JSON logs: level names (`"level":"info"`), `pid` and `hostname` on every line so the
 * lines of several replicas or workers can be told apart. Call sites never pass secrets; the
 * redaction list is the second line of defence for any field that might carry one by accident.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = "json"): Logger {
  return pino(
    {
      level,
      base: { service: "gatehouse", pid: process.pid, hostname: hostname() },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "password",
          "otp",
          "code",
          "codeHash",
          "token",
          "accessToken",
          "refreshToken",
          "authorization",
          "apiKey",
          "*.password",
          "*.otp",
          "*.codeHash",
          "*.accessToken",
          "*.refreshToken",
          "*.authorization",
          "*.apiKey",
          "req.headers.authorization",
          "req.headers.cookie",
        ],
        censor,
      },
    },
    format === "pretty"
      ? pinoPretty({
          destination: destination ?? 1,
          sync: true,
          colorize: true,
          singleLine: true,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,service",
        })
      : destination,
  );
}

export type { Logger };
