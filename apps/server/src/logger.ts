import { pino, type Logger } from "pino";

/**
 * Structured JSON logs. Call sites never pass secrets; the redaction list is the second line of
 * defence for any field that might carry one by accident.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
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
    destination,
  );
}

export type { Logger };
