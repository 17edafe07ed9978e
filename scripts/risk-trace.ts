/**
 * A synthetic login history in the column layout of the open RBA dataset (das-group/rba-dataset), for
 * `gatehouse risk evaluate`: owners with home countries, networks and browsers who travel, change addresses,
 * update their browsers and mistype passwords; targeted attackers who know the victim's password, country
 * and browser and come through a proxy in the victim's country; untargeted credential stuffers.
 *
 *   node scripts/risk-trace.ts [--users 2000] [--days 180] [--seed 1] > trace.csv
 *
 * Deterministic for a seed. What it models, and what it does not, is in docs/risk.md.
 */
import { parseArgs } from "node:util";

export const RBA_HEADER = [
  "Login Timestamp",
  "User ID",
  "Round-Trip Time [ms]",
  "IP Address",
  "Country",
  "Region",
  "City",
  "ASN",
  "User Agent String",
  "Browser Name and Version",
  "OS Name and Version",
  "Device Type",
  "Login Successful",
  "Is Attack IP",
  "Is Account Takeover",
] as const;

export interface TraceOptions {
  readonly users: number;
  readonly days: number;
  readonly seed: number;
}

/** mulberry32: small, fast, and the same sequence for a seed on every machine. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const weighted = <T>(items: readonly (readonly [T, number])[]): T => {
    let left = next() * items.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [item, weight] of items) if ((left -= weight) <= 0) return item;
    return items.at(-1)![0];
  };
  return { next, int, pick, weighted };
}
type Random = ReturnType<typeof randomSource>;

/** Countries: share of users, and the round-trip time from there to a server in western Europe. */
const COUNTRIES: readonly (readonly [code: string, share: number, rttMs: number])[] = [
  ["NO", 8, 18],
  ["DE", 12, 22],
  ["US", 20, 95],
  ["GB", 8, 25],
  ["FR", 7, 25],
  ["NL", 4, 18],
  ["SE", 4, 22],
  ["PL", 4, 32],
  ["ES", 5, 38],
  ["IT", 5, 36],
  ["BR", 6, 190],
  ["IN", 7, 140],
  ["JP", 4, 230],
  ["CA", 3, 105],
  ["AU", 3, 280],
];
/** Where untargeted attackers come from. */
const ATTACK_COUNTRIES = ["RU", "CN", "VN", "NG", "US", "BR", "IN", "UA"] as const;

interface Network {
  readonly asn: number;
  readonly country: string;
  readonly prefix: string;
  readonly kind: "residential" | "mobile" | "hosting";
}

/** Each country's networks: five home ISPs by market share, two mobile carriers, two hosting providers. */
function buildNetworks(): Map<string, { residential: [Network, number][]; mobile: [Network, number][]; hosting: Network[] }> {
  const networks = new Map<string, { residential: [Network, number][]; mobile: [Network, number][]; hosting: Network[] }>();
  let index = 0;
  const network = (country: string, kind: Network["kind"]): Network => {
    index++;
    return { asn: 64_000 + index * 7, country, prefix: `${11 + (index % 200)}.${Math.floor(index / 200) * 16 + (index % 16)}`, kind };
  };
  for (const country of [...COUNTRIES.map(([code]) => code), ...ATTACK_COUNTRIES]) {
    if (networks.has(country)) continue;
    networks.set(country, {
      residential: [35, 25, 20, 12, 8].map((share) => [network(country, "residential"), share]),
      mobile: [60, 40].map((share) => [network(country, "mobile"), share]),
      hosting: [network(country, "hosting"), network(country, "hosting")],
    });
  }
  return networks;
}

const ipIn = (random: Random, network: Network) => `${network.prefix}.${random.int(0, 255)}.${random.int(1, 254)}`;

const DESKTOP_OS: readonly (readonly [string, number])[] = [
  ["Windows 10", 40],
  ["Windows 11", 25],
  ["Mac OS 14.5", 22],
  ["Linux", 6],
  ["Chrome OS 126", 3],
];
const MOBILE_OS: readonly (readonly [string, number])[] = [
  ["Android 14", 55],
  ["iOS 17.5", 45],
];
const DESKTOP_BROWSERS: readonly (readonly [string, number])[] = [
  ["Chrome", 60],
  ["Firefox", 12],
  ["Edge", 13],
  ["Safari", 10],
  ["Opera", 5],
];
/** Major versions at the trace's start; each browser ships a new one every four weeks. */
const FIRST_VERSION: Readonly<Record<string, number>> = { Chrome: 120, Firefox: 121, Edge: 120, Safari: 17, Opera: 106 };

function userAgent(browser: string, version: number, os: string): string {
  const platform = os.startsWith("Windows")
    ? "Windows NT 10.0; Win64; x64"
    : os.startsWith("Mac")
      ? "Macintosh; Intel Mac OS X 10_15_7"
      : os.startsWith("Android")
        ? "Linux; Android 14; Pixel 8"
        : os.startsWith("iOS")
          ? "iPhone; CPU iPhone OS 17_5 like Mac OS X"
          : os.startsWith("Chrome OS")
            ? "X11; CrOS x86_64 15917.71.0"
            : "X11; Linux x86_64";
  const mobile = os.startsWith("Android") || os.startsWith("iOS") ? " Mobile" : "";
  if (browser === "Firefox") return `Mozilla/5.0 (${platform}; rv:${version}.0) Gecko/20100101 Firefox/${version}.0`;
  if (browser === "Safari") return `Mozilla/5.0 (${platform}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${version}.0${mobile} Safari/605.1.15`;
  const chrome = `Mozilla/5.0 (${platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version}.0.0.0${mobile} Safari/537.36`;
  if (browser === "Edge") return `${chrome} Edg/${version}.0.0.0`;
  if (browser === "Opera") return `${chrome} OPR/${version}.0.0.0`;
  return chrome;
}

interface Device {
  readonly kind: "desktop" | "mobile";
  readonly os: string;
  readonly browser: string;
  /** Days this owner's browser lags a release. */
  readonly updateLagDays: number;
}

interface Access {
  readonly network: Network;
  readonly extraRttMs: number;
  /** Days an address lasts: residential lines keep one for weeks, mobile carriers hand out a new one each time. */
  readonly addressDays: number;
  address: string;
  addressSince: number;
}

interface Owner {
  readonly id: string;
  readonly country: string;
  readonly rttMs: number;
  readonly devices: Device[];
  readonly home: Access;
  readonly mobile: Access | null;
  readonly work: Access | null;
  readonly perDay: number;
  readonly trip: { start: number; end: number; country: string; rttMs: number; hotel: Access } | null;
}

interface Row {
  readonly at: number;
  readonly values: readonly (string | number)[];
}

const DAY_MS = 86_400_000;

/** The whole trace as CSV lines (header first), oldest first. */
export function generateTrace(options: TraceOptions): string[] {
  const random = randomSource(options.seed);
  const networks = buildNetworks();
  const start = Date.UTC(2026, 0, 1);
  const end = start + options.days * DAY_MS;
  const rows: Row[] = [];

  const versionAt = (browser: string, at: number, lagDays: number) =>
    FIRST_VERSION[browser]! + Math.max(0, Math.floor((at - start - lagDays * DAY_MS) / (28 * DAY_MS)));
  const access = (network: Network, extraRttMs: number, addressDays: number): Access => ({
    network,
    extraRttMs,
    addressDays,
    address: ipIn(random, network),
    addressSince: start,
  });
  const addressAt = (line: Access, at: number) => {
    if (line.addressDays === 0 || at - line.addressSince > line.addressDays * DAY_MS) {
      line.address = ipIn(random, line.network);
      line.addressSince = at;
    }
    return line.address;
  };
  const row = (
    at: number,
    userId: string,
    rtt: number | null,
    ip: string,
    network: Network,
    device: Device,
    lagDays: number,
    successful: boolean,
    attackIp: boolean,
    takeover: boolean,
  ): Row => {
    const version = versionAt(device.browser, at, lagDays);
    return {
      at,
      values: [
        new Date(at).toISOString().replace("T", " ").replace("Z", ""),
        userId,
        rtt === null ? "" : Math.round(rtt),
        ip,
        network.country,
        "",
        "",
        network.asn,
        userAgent(device.browser, version, device.os),
        `${device.browser} ${version}.0.0`,
        device.os,
        device.kind,
        successful ? "True" : "False",
        attackIp ? "True" : "False",
        takeover ? "True" : "False",
      ],
    };
  };

  const owners: Owner[] = [];
  for (let index = 0; index < options.users; index++) {
    const [country, , rttMs] = random.weighted(COUNTRIES.map((entry) => [entry, entry[1]] as const));
    const nets = networks.get(country)!;
    const devices: Device[] = [
      { kind: "desktop", os: random.weighted(DESKTOP_OS), browser: random.weighted(DESKTOP_BROWSERS), updateLagDays: random.int(0, 12) },
    ];
    const hasPhone = random.next() < 0.5;
    if (hasPhone) {
      const os = random.weighted(MOBILE_OS);
      devices.push({ kind: "mobile", os, browser: os.startsWith("iOS") ? "Safari" : "Chrome", updateLagDays: random.int(0, 20) });
    }
    const travels = random.next() < 0.4;
    const tripStart = start + random.int(10, options.days - 15) * DAY_MS;
    const [tripCountry, , tripRtt] = random.pick(COUNTRIES.filter(([code]) => code !== country));
    owners.push({
      id: `user-${index + 1}`,
      country,
      rttMs,
      devices,
      home: access(random.weighted(nets.residential), random.int(4, 20), random.int(14, 60)),
      mobile: hasPhone ? access(random.weighted(nets.mobile), random.int(20, 45), 0) : null,
      work: random.next() < 0.25 ? access(random.weighted(nets.residential), random.int(2, 8), 10_000) : null,
      perDay: 0.2 + random.next() * 1.3,
      trip: travels
        ? {
            start: tripStart,
            end: tripStart + random.int(3, 10) * DAY_MS,
            country: tripCountry,
            rttMs: tripRtt,
            hotel: access(random.weighted(networks.get(tripCountry)!.residential), random.int(5, 25), 2),
          }
        : null,
    });
  }

  for (const owner of owners) {
    for (let at = start + random.next() * (DAY_MS / owner.perDay); at < end; at += (-Math.log(1 - random.next()) * DAY_MS) / owner.perDay) {
      const traveling = owner.trip !== null && at >= owner.trip.start && at < owner.trip.end;
      const phone = owner.devices.find((each) => each.kind === "mobile");
      const usePhone = phone !== undefined && random.next() < (traveling ? 0.5 : 0.3);
      const device = usePhone ? phone : owner.devices[0]!;
      let line: Access;
      let baseRtt = owner.rttMs;
      if (traveling && !usePhone) {
        line = owner.trip!.hotel;
        baseRtt = owner.trip!.rttMs;
      } else if (usePhone) {
        line = owner.mobile!;
        // Roaming: the carrier's address at home, the path through it from abroad.
        if (traveling) baseRtt = owner.rttMs + owner.trip!.rttMs;
      } else if (owner.work !== null && random.next() < 0.35) line = owner.work;
      else line = owner.home;
      const rtt = (baseRtt + line.extraRttMs) * (0.9 + random.next() * 0.2);
      const ip = addressAt(line, at);
      if (random.next() < 0.05) rows.push(row(at - 20_000, owner.id, rtt, ip, line.network, device, device.updateLagDays, false, false, false));
      rows.push(row(at, owner.id, rtt, ip, line.network, device, device.updateLagDays, true, false, false));
    }
  }

  // Targeted attackers: 2% of the owners, each attacked a few times by someone who has the password and
  // knows the victim's country and browser (not their OS, their network or the path to them).
  for (const victim of owners) {
    if (random.next() >= 0.02) continue;
    const nets = networks.get(victim.country)!;
    const proxy = random.next() < 0.7 ? random.weighted(nets.residential) : random.pick(nets.hosting);
    const known = victim.devices[0]!;
    const device: Device = { kind: "desktop", os: random.weighted(DESKTOP_OS), browser: known.browser, updateLagDays: known.updateLagDays };
    const abroadRtt = random.int(40, 220);
    const first = start + random.int(30, options.days - 5) * DAY_MS;
    for (let attempt = 0, at = first; attempt < random.int(1, 3); attempt++, at += random.int(1, 48) * 3_600_000) {
      const rtt = (victim.rttMs + abroadRtt + random.int(2, 10)) * (0.9 + random.next() * 0.2);
      rows.push(row(at, victim.id, rtt, ipIn(random, proxy), proxy, device, device.updateLagDays, true, true, true));
    }
  }

  // Untargeted credential stuffing: lists of leaked passwords tried from hosting networks abroad; about 1% hit.
  for (let campaign = 0; campaign < Math.ceil(options.users / 100); campaign++) {
    const country = random.pick(ATTACK_COUNTRIES);
    const network = random.pick(networks.get(country)!.hosting);
    const device: Device = { kind: "desktop", os: random.weighted(DESKTOP_OS), browser: random.weighted(DESKTOP_BROWSERS), updateLagDays: 0 };
    const ip = ipIn(random, network);
    const at0 = start + random.int(1, options.days - 1) * DAY_MS;
    for (let attempt = 0; attempt < 60; attempt++) {
      const victim = random.pick(owners);
      const hit = random.next() < 0.03;
      rows.push(row(at0 + attempt * 30_000, victim.id, null, ip, network, device, 0, hit, true, hit));
    }
  }

  rows.sort((a, b) => a.at - b.at);
  const csv = (value: string | number) => (typeof value === "string" && /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : String(value));
  return [RBA_HEADER.join(","), ...rows.map((each) => each.values.map(csv).join(","))];
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { users: { type: "string", default: "2000" }, days: { type: "string", default: "180" }, seed: { type: "string", default: "1" } },
  });
  const lines = generateTrace({ users: Number(values.users), days: Number(values.days), seed: Number(values.seed) });
  process.stdout.write(`${lines.join("\n")}\n`);
}
