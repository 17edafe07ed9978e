import { describe, expect, it } from "vitest";
import { createRegistrantProofStore } from "../src/api/registrant-proof.ts";
import type { StorageLike } from "../src/session.ts";
import { memoryStorage } from "./memory-storage.ts";

const blocked: StorageLike = {
  getItem: () => {
    throw new Error("blocked");
  },
  setItem: () => {
    throw new Error("blocked");
  },
  removeItem: () => {
    throw new Error("blocked");
  },
};

describe("the registrant proof kept for the verification link", () => {
  it.each<[string, StorageLike | null, string]>([
    ["tab storage keeps it until forgotten", memoryStorage(), "gh_rp_kept"],
    ["blocked storage keeps nothing (the link page asks for a password)", blocked, ""],
    ["no storage keeps nothing", null, ""],
  ])("%s", (_name, storage, expected) => {
    const store = createRegistrantProofStore(storage);
    store.keep("gh_rp_kept");
    expect(store.current()).toBe(expected);
    store.forget();
    expect(store.current()).toBe("");
  });

  it("an empty proof (nothing was emailed) clears an earlier sign-up's", () => {
    const store = createRegistrantProofStore(memoryStorage());
    store.keep("gh_rp_earlier");
    store.keep("");
    expect(store.current()).toBe("");
  });
});
