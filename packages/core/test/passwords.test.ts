import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OWASP_ARGON2ID_PARAMS } from "../src/config.ts";
import { parseArgon2id } from "../src/passwords/argon2id.ts";
import { createKdfPasswordHasher } from "../src/passwords/kdf-password-hasher.ts";
import { parsePhc } from "../src/passwords/phc-string.ts";
import { SequenceRandom } from "../src/testing/sequence-random.ts";

const cheap = { memoryKiB: 1024, passes: 1, parallelism: 1 };
const hasher = (params = cheap) => createKdfPasswordHasher(params, new SequenceRandom());

/** A hash as Gatehouse stored them before Argon2id: `scrypt$N$r$p$salt$hash`, base64url. */
function legacyScryptHash(password: string, N = 1024): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFC"), salt, 32, { N, r: 8, p: 1 });
  return ["scrypt", N, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
}

describe("Argon2id password hashes", () => {
  it("are PHC strings with the parameters, standard unpadded base64 salt and hash, and verify", async () => {
    const h = hasher();
    const hash = await h.hash("s3cret-pass");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(hash).not.toContain("s3cret-pass");
    expect(await h.verify("s3cret-pass", hash)).toEqual({ matches: true, needsRehash: false });
    expect(await h.verify("s3cret-pasS", hash)).toEqual({ matches: false, needsRehash: false });
    expect(await h.verify("", hash)).toEqual({ matches: false, needsRehash: false });
  });

  it("verify a hash of the reference implementation (phc-winner-argon2 src/test.c)", async () => {
    const reference = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc";
    expect(parsePhc(reference)).not.toBeNull();
    expect((await hasher().verify("password", reference)).matches).toBe(true);
  });

  it("use a fresh salt per hash", async () => {
    const h = hasher();
    expect(await h.hash("same")).not.toBe(await h.hash("same"));
  });

  it("treat Unicode normalisation forms alike", async () => {
    const h = hasher();
    expect((await h.verify("cafe\u0301", await h.hash("caf\u00e9"))).matches).toBe(true);
  });

  it("ask for a rehash after a match when the stored parameters are not the current ones", async () => {
    const old = await hasher().hash("pw");
    const stronger = hasher({ memoryKiB: 2048, passes: 1, parallelism: 1 });
    expect(await stronger.verify("pw", old)).toEqual({ matches: true, needsRehash: true });
    expect(await stronger.verify("wrong", old)).toEqual({ matches: false, needsRehash: false });
    expect(parseArgon2id(await stronger.hash("pw"))?.params).toEqual({ memoryKiB: 2048, passes: 1, parallelism: 1 });
  });

  it("default to OWASP's parameters (m = 19 MiB, t = 2, p = 1)", () => {
    expect(OWASP_ARGON2ID_PARAMS).toEqual({ memoryKiB: 19_456, passes: 2, parallelism: 1 });
  });

  it("refuse unusable parameters when the hasher is built", () => {
    expect(() => hasher({ memoryKiB: 4, passes: 1, parallelism: 1 })).toThrow(TypeError);
    expect(() => hasher({ memoryKiB: 1024, passes: 0, parallelism: 1 })).toThrow(TypeError);
    expect(() => hasher({ memoryKiB: 1024, passes: 1, parallelism: 1.5 })).toThrow(TypeError);
  });
});

describe("legacy scrypt hashes", () => {
  it("still verify, and a match asks for a rehash", async () => {
    const legacy = legacyScryptHash("correct horse battery");
    expect(await hasher().verify("correct horse battery", legacy)).toEqual({ matches: true, needsRehash: true });
    expect(await hasher().verify("wrong horse battery", legacy)).toEqual({ matches: false, needsRehash: false });
  });
});

describe("malformed stored hashes never match and never throw", () => {
  const valid = "$argon2id$v=19$m=1024,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc";
  it.each([
    "",
    "bcrypt$x",
    "scrypt$a$b$c$d$e",
    "scrypt$1024$8$1$salt",
    "scrypt$1000$8$1$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA", // N not a power of two
    "scrypt$1048576$64$1$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA", // 8 GiB
    "scrypt$1024$8$1$c2FsdA$aGFzaA==", // not base64url
    valid.replace("argon2id", "argon2i"),
    valid.replace("v=19", "v=16"),
    valid.replace("v=19$", ""),
    valid.replace("m=1024", "m=4294967295"), // would allocate 4 TiB
    valid.replace("m=1024", "m=4"),
    valid.replace("t=1", "t=0"),
    valid.replace("p=1", "p=0"),
    valid.replace("m=1024", "m=01024"),
    valid.replace(",p=1", ""),
    valid.replace("p=1", "p=1,p=1"),
    valid.replace("p=1", "p=1,x=2"),
    valid.replace("$c29t", "$c29t="),
    valid.replace("$c29t", "$c2-t"),
    `${valid}=`,
    `${valid}$extra`,
    valid.replace(/\$[^$]+$/, "$c2hvcnQ"), // a 5-byte hash
  ])("%j", async (stored) => {
    await expect(hasher().verify("password", stored)).resolves.toEqual({ matches: false, needsRehash: false });
  });
});
