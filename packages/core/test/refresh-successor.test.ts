import { describe, expect, it } from "vitest";
import { openSuccessor, sealSuccessor } from "../src/sign-in/refresh-successor.ts";
import { SequenceRandom } from "../src/testing/index.ts";

describe("the sealed refresh successor", () => {
  it("the sealed successor opens only with the old refresh token", () => {
    const random = new SequenceRandom();
    const successor = { accessToken: "gh_at_successor", refreshToken: "gh_rt_successor" };
    const sealed = sealSuccessor("gh_rt_old", successor, random);
    expect(sealed).not.toContain("successor");
    expect(openSuccessor("gh_rt_old", sealed)).toEqual(successor);
    expect(openSuccessor("gh_rt_other", sealed)).toBeNull();
    expect(openSuccessor("gh_rt_old", `${sealed.slice(0, -2)}AA`)).toBeNull();
  });
});
