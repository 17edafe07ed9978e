import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

describe("createLogger", () => {
  it("pretty: one readable line per entry, with the same redaction as JSON", () => {
    const out = capture();
    createLogger("info", out.stream, "pretty").info({ rpc: "gatehouse.v1.AuthService/Login", status: "ok", ms: 1.5, password: "hunter22hunter" }, "rpc");
    const text = out.text();
    expect(text.trim().split("\n")).toHaveLength(1);
    expect(text).toContain("INFO");
    expect(text).toContain("gatehouse.v1.AuthService/Login");
    expect(text).not.toContain("hunter22hunter");
    expect(() => JSON.parse(text) as unknown).toThrow();
  });

  it("json: one JSON object per line", () => {
    const out = capture();
    createLogger("info", out.stream).info({ path: "/healthz", status: 200 }, "http");
    expect(JSON.parse(out.text())).toMatchObject({ msg: "http", path: "/healthz", status: 200, service: "gatehouse" });
  });
});

describe("createLogger: what every JSON line carries", () => {
  it("names the level and carries the pid and host, so replicas' lines can be told apart", () => {
    const out = capture();
    createLogger("info", out.stream).warn("no SMS provider");
    expect(JSON.parse(out.text())).toMatchObject({ level: "warn", pid: process.pid, hostname: expect.any(String) as unknown });
  });

  it("keeps a process exit code, an error code and a null code, and still redacts a code of digits", () => {
    const out = capture();
    const logger = createLogger("info", out.stream);
    logger.error({ worker: 42, code: 1, signal: null }, "worker exited");
    logger.error({ code: null, signal: "SIGKILL" }, "worker exited");
    logger.warn({ code: "ECONNREFUSED" }, "database unreachable");
    logger.info({ code: "123456", otp: "654321", password: "hunter22hunter" }, "oops");
    const lines = out
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.code)).toEqual([1, null, "ECONNREFUSED", "[redacted]"]);
    expect(out.text()).not.toMatch(/123456|654321|hunter22hunter/);
  });
});
