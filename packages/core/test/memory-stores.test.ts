import { createMemoryStores } from "../src/testing/memory-stores.ts";
import { describeStoreContract } from "../src/testing/store-contract.ts";

describeStoreContract("memory", async () => ({ stores: createMemoryStores(), close: async () => {} }));
