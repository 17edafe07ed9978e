import { describe, expect, it } from "vitest";
import { checkUrl, compileAccessControl, hostKeyOf, MAX_URL_LENGTH } from "../../src/url-policy/index.ts";
import { BYPASS_CORPUS, CORPUS_POLICIES } from "./bypass-corpus.ts";

const compiled = {
  allowList: compileAccessControl(CORPUS_POLICIES.allowList),
  blockList: compileAccessControl(CORPUS_POLICIES.blockList),
};

const rows = BYPASS_CORPUS.map((row) => ({ ...row, title: `${row.policy} ${JSON.stringify(row.input).slice(0, 70)}: ${row.why}` }));

describe("bypass corpus (url-policy.md §4)", () => {
  it("has at least 150 cases and compiles both policies without skipping entries", () => {
    expect(BYPASS_CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(compiled.allowList.skipped).toEqual([]);
    expect(compiled.blockList.skipped).toEqual([]);
  });

  it.each(rows)("$title", ({ input, policy, expect: expected }) => {
    const decision = checkUrl(compiled[policy], input);

    expect({ allowed: decision.allowed, reasonCode: decision.reasonCode }).toEqual({
      allowed: expected.allowed,
      reasonCode: expected.reasonCode,
    });
    if (expected.host !== undefined) {
      expect(decision.canonicalUrl).toBeDefined();
      expect(hostKeyOf(decision.canonicalUrl ?? "")).toMatchObject({ key: expected.host });
    }
    // canonical_url exactly when the URL parsed; a reason exactly when denied
    const parses = input.length <= MAX_URL_LENGTH && URL.parse(input) !== null;
    expect(decision.canonicalUrl !== undefined).toBe(parses);
    expect(decision.reason !== undefined).toBe(!decision.allowed);
    // the client opens canonical_url, so it must get the same answer
    if (decision.canonicalUrl !== undefined) expect(checkUrl(compiled[policy], decision.canonicalUrl)).toEqual(decision);
  });

  it("decides every case the same when every host key's hash collides (a hash match alone never decides)", () => {
    const colliding = {
      allowList: compileAccessControl(CORPUS_POLICIES.allowList, { hostHash: () => 0 }),
      blockList: compileAccessControl(CORPUS_POLICIES.blockList, { hostHash: () => 0 }),
    };
    for (const { input, policy } of rows) expect(checkUrl(colliding[policy], input), input).toEqual(checkUrl(compiled[policy], input));
  });
});
