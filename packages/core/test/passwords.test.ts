import { describe, expect, it } from "vitest";
import { DEFAULT_SCRYPT_PARAMS, hashPassword, verifyPassword } from "../src/passwords.ts";
import { SequenceRandom } from "../src/testing/sequence-random.ts";

const params = { N: 1024, r: 8, p: 1 };

describe("passwords", () => {
  it("stores the parameters with the hash and verifies", async () => {
    const hash = await hashPassword("s3cret-pass", params, new SequenceRandom());
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(hash).not.toContain("s3cret-pass");
    expect(await verifyPassword("s3cret-pass", hash)).toBe(true);
    expect(await verifyPassword("s3cret-pasS", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  it("uses a fresh salt per hash", async () => {
    const random = new SequenceRandom();
    expect(await hashPassword("same", params, random)).not.toBe(await hashPassword("same", params, random));
  });

  it("verifies hashes made with other parameters, so they can be raised later", async () => {
    const old = await hashPassword("pw", { N: 512, r: 4, p: 1 }, new SequenceRandom());
    expect(await verifyPassword("pw", old)).toBe(true);
  });

  it("treats Unicode normalisation forms alike", async () => {
    const hash = await hashPassword("caf\u00e9", params, new SequenceRandom());
    expect(await verifyPassword("cafe\u0301", hash)).toBe(true);
  });

  it.each(["", "bcrypt$x", "scrypt$a$b$c$d$e", "scrypt$1024$8$1$salt"])("never matches a malformed hash %j", async (stored) => {
    expect(await verifyPassword("pw", stored)).toBe(false);
  });

  it("defaults to OWASP's minimum (N=2^17, r=8, p=1)", () => {
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
  });
});
