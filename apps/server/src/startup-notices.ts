import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

/**
 * What is switched off or only fit for development, said once at start-up so it is never silent:
 * no SMS provider (codes are never sent), dev OTP mode, the dev OTP route flag without the mode.
 */
export function startupNotices(config: ServerConfig): string[] {
  const notices: string[] = [];
  if (config.devOtpMode) {
    notices.push("dev OTP mode is on (OTP_RETURN_TO_CLIENT=true): no SMS is sent, codes are kept in memory for the dev route; never use it with real users");
  } else if (config.smsProvider.kind === "none") {
    notices.push("no SMS provider (SMS_PROVIDER): sign-ins that need MFA get a challenge whose code is never sent");
  }
  if (config.factorEncryptionKey === undefined) {
    notices.push(
      "FACTOR_ENCRYPTION_KEY is not set: authenticator-app secrets and recovery codes use a development key derived from a published constant; never use it with real users",
    );
  }
  if (config.devOtpRouteFlag && !config.devOtpMode) {
    notices.push("NEXT_PUBLIC_DEV_OTP_ENABLED=true is ignored: the dev OTP route needs dev OTP mode (OTP_RETURN_TO_CLIENT=true, APP_ENV not production)");
  }
  return notices;
}

/** Warnings, except in development (APP_ENV=development), where they are what the developer asked for: info. */
export function logStartupNotices(config: ServerConfig, logger: Logger): void {
  const development = config.appEnv === "development";
  for (const notice of startupNotices(config)) {
    if (development) logger.info({ appEnv: config.appEnv }, notice);
    else logger.warn({ appEnv: config.appEnv ?? null }, notice);
  }
}
