import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { countedRateLimiter } from "../src/counted-rate-limiter.ts";
import { createEmail } from "../src/email.ts";
import { createLogger } from "../src/logger.ts";
import { createMetrics } from "../src/metrics.ts";
import { createMemoryStores, ManualClock } from "@gatehouse/core/testing";

const MESSAGE = { to: "ada@example.com", subject: "Verify", text: "link" };
const silent = createLogger("silent");

describe("metrics", () => {
  it("gatehouse_build_info names the running version", async () => {
    expect(await createMetrics("1.2.3").registry.metrics()).toContain('gatehouse_build_info{version="1.2.3"} 1');
  });

  it("counts email sends and failures by delivery", async () => {
    const metrics = createMetrics("0.0.0");
    const none = createEmail(loadConfig({}).email, new ManualClock(), silent, metrics.emailResult);
    await expect(none.sender.send(MESSAGE)).rejects.toThrow("no EMAIL_SMTP_URL configured");
    const directory = mkdtempSync(join(tmpdir(), "gatehouse-dev-mail-"));
    try {
      const env = { APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true", DEV_MAIL_DIR: directory };
      await createEmail(loadConfig(env).email, new ManualClock(), silent, metrics.emailResult).sender.send(MESSAGE);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    const text = await metrics.registry.metrics();
    expect(text).toContain('gatehouse_email_sends_total{delivery="none",outcome="failed"} 1');
    expect(text).toContain('gatehouse_email_sends_total{delivery="dev-mailbox",outcome="sent"} 1');
  });

  it("every named limit refusal is its own limit label, never 'other'", async () => {
    const metrics = createMetrics("0.0.0");
    const limiter = countedRateLimiter(createMemoryStores().rateLimiter, metrics.rateLimitRejected);
    for (const key of ["email-send:client:203.0.113.7:3600000", "password-fail:account:ada@example.com", "policy-write:org:o_1:60000"]) {
      await limiter.consume(key, 1, 3_600_000, 0);
      await limiter.consume(key, 1, 3_600_000, 0);
    }
    const text = await metrics.registry.metrics();
    for (const label of ["email-send:client:1h", "password-fail:account:1h", "policy-write:org:1h"]) {
      expect(text).toContain(`gatehouse_rate_limit_rejections_total{limit="${label}"} 1`);
    }
    expect(text).not.toContain('limit="other"');
  });
});
