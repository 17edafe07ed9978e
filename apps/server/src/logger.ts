import { pino, type Logger } from "pino";
import pinoPretty from "pino-pretty";

export type LogFormat = "json" | "pretty";

/** `auto` is readable on a developer's terminal and JSON wherever a machine reads the log (pipes, files, production). */
export function resolveLogFormat(format: "auto" | LogFormat, production: boolean, stdoutIsTty: boolean): LogFormat {
  if (format !== "auto") return format;
  return stdoutIsTty && !production ? "pretty" : "json";
}

/**
 * Structured JSON logs. Call sites never pass secrets; the redaction list is the second line of
 * defence for any field that might carry one by accident.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = "json"): Logger {
  return pino(
    {
      level,
      base: { service: "gatehouse" },
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
        censor: "[redacted]",
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
