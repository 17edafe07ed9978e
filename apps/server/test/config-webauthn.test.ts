import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";

describe("WebAuthn configuration", () => {
  it("defaults to localhost on the server's port", () => {
    expect(loadConfig({ PORT: "3000" }, 8).webauthn).toEqual({ rpId: "localhost", rpName: "Gatehouse", origins: ["http://localhost:3000"] });
  });

  it("takes a domain, a name and several origins within it", () => {
    const env = { WEBAUTHN_RP_ID: "Example.com", WEBAUTHN_RP_NAME: "Example", WEBAUTHN_ORIGINS: "https://example.com, https://login.example.com:8443" };
    expect(loadConfig(env, 8).webauthn).toEqual({ rpId: "example.com", rpName: "Example", origins: ["https://example.com", "https://login.example.com:8443"] });
  });

  it.each([
    [{ WEBAUTHN_RP_ID: "127.0.0.1" }, "WEBAUTHN_RP_ID must be a domain name, not an IP address"],
    [{ WEBAUTHN_RP_ID: "https://example.com" }, "WEBAUTHN_RP_ID must be a domain name such as example.com"],
    [{ WEBAUTHN_ORIGINS: "http://127.0.0.1:8080" }, "is not localhost or a subdomain of it"],
    [{ WEBAUTHN_RP_ID: "example.com", WEBAUTHN_ORIGINS: "http://example.com" }, "must be https"],
    [{ WEBAUTHN_ORIGINS: "http://localhost:8080/login" }, "must be an origin such as"],
    [{ WEBAUTHN_ORIGINS: " , " }, "WEBAUTHN_ORIGINS must list at least one origin"],
    [{ WEBAUTHN_RP_NAME: "x".repeat(65) }, "WEBAUTHN_RP_NAME must be at most 64 printable characters"],
  ])("refuses %j", (env, problem) => {
    expect(configProblems(env)).toContain(problem);
  });
});
