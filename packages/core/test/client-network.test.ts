import { describe, expect, it } from "vitest";
import { clientGroup, clientNetwork } from "../src/rate-limits/client-network.ts";

describe("clientGroup: the key of every per-client limit", () => {
  it("keeps an IPv4 address, and an IPv4-mapped IPv6 address as its IPv4 form", () => {
    expect(clientGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(clientGroup("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("groups an IPv6 address by its /64, however it is written", () => {
    const group = "2001:db8:1:2::/64";
    for (const address of [
      "2001:db8:1:2::1",
      "2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd",
      "2001:db8:1:2:0:0:0:0",
      "2001:db8:1:2::1.2.3.4",
      "2001:db8:1:2::1%eth0",
    ]) {
      expect(clientGroup(address)).toBe(group);
    }
    expect(clientGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientGroup("::1")).toBe("0:0:0:0::/64");
    expect(clientGroup("fe80::1")).toBe("fe80:0:0:0::/64");
  });

  it("leaves what is not an address as it is", () => {
    for (const value of ["unknown", "999.1.1.1", "2001:db8::g", ""]) expect(clientGroup(value)).toBe(value);
  });
});

describe("clientNetwork: the network of the guessing budgets", () => {
  it.each([
    ["203.0.113.7", "203.0.113.0/24"],
    ["203.0.113.200", "203.0.113.0/24"],
    ["::ffff:203.0.113.7", "203.0.113.0/24"],
    ["203.0.114.7", "203.0.114.0/24"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff::9", "2001:db8:1:2::/64"],
    ["unknown", "unknown"],
  ])("%s is in %s", (ip, network) => {
    expect(clientNetwork(ip)).toBe(network);
  });
});
