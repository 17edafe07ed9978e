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
