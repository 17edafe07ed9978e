import { createGatehouse, cryptoRandom, systemClock, type Gatehouse, type GatehouseDeps } from "@gatehouse/core";

/**
 * The operator a wire test seeds with in process, as the CLI would, on the database its server runs on:
 * no SMS or email goes out (the server under test sends those), and passwords hash cheaply.
 */
export function seedingOperator(stores: GatehouseDeps["stores"]): Gatehouse {
  return createGatehouse({
    stores,
    sms: { sendOtp: async () => {} },
    email: { send: async () => {} },
    clock: systemClock,
    random: cryptoRandom,
    config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 } },
  });
}
