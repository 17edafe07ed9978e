import { ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { AccountService, AdminService, AuthService, BrowserService, DevService } from "@gatehouse/transport-connect";

export type Protocol = "connect" | "grpc" | "grpc-web";

export function transportFor(baseUrl: string, protocol: Protocol = "connect"): Transport {
  if (protocol === "grpc") return createGrpcTransport({ baseUrl });
  if (protocol === "grpc-web") return createGrpcWebTransport({ baseUrl, httpVersion: "1.1" });
  return createConnectTransport({ baseUrl, httpVersion: "1.1" });
}

export interface Clients {
  readonly auth: Client<typeof AuthService>;
  readonly browser: Client<typeof BrowserService>;
  readonly dev: Client<typeof DevService>;
  readonly admin: Client<typeof AdminService>;
  readonly account: Client<typeof AccountService>;
}

export function clientsFor(baseUrl: string, protocol: Protocol = "connect"): Clients {
  const transport = transportFor(baseUrl, protocol);
  return {
    auth: createClient(AuthService, transport),
    browser: createClient(BrowserService, transport),
    dev: createClient(DevService, transport),
    admin: createClient(AdminService, transport),
    account: createClient(AccountService, transport),
  };
}

export const bearer = (accessToken: string) => ({ headers: { authorization: `Bearer ${accessToken}` } });

/** The ConnectError a call failed with; fails the test when the call succeeds. */
export async function rpcError(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected the call to fail");
}
