import { describe, expect, it } from "vitest";
import { addressGroup } from "../src/client-ip.ts";

describe("addressGroup", () => {
  it("keeps an IPv4 address, and an IPv4-mapped IPv6 address as its IPv4 form", () => {
    expect(addressGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("::ffff:203.0.113.7")).toBe("203.0.113.7");
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
      expect(addressGroup(address)).toBe(group);
    }
    expect(addressGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressGroup("::1")).toBe("0:0:0:0::/64");
    expect(addressGroup("fe80::1")).toBe("fe80:0:0:0::/64");
  });

  it("leaves what is not an address as it is", () => {
    expect(addressGroup("unknown")).toBe("unknown");
  });
});
