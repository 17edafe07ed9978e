import { createMemoryStores } from "../src/testing/memory-stores.ts";
import { describeStoreContract } from "../src/testing/store-contract.ts";
import { describeUseCaseConcurrency } from "../src/testing/use-case-concurrency.ts";

const open = async () => ({ stores: createMemoryStores(), close: async () => {} });

describeStoreContract("memory", open);
describeUseCaseConcurrency("memory", open);
