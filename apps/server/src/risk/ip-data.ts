/**
 * Offline IP data: country, AS number and (with a city database) a location for an address, read from MMDB
 * files in memory, never over the network. The default country data (`@ip-location-db/geo-whois-asn-country-mmdb`,
 * built from the regional registries' data) installs with the package; an operator's own files (MaxMind
 * GeoLite2/GeoIP2, DB-IP, IPinfo, ip-location-db) replace or complete it through IP_COUNTRY_DB, IP_ASN_DB, IP_CITY_DB.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { GeoPoint, IpLocator } from "@gatehouse/core";
import { Reader, type Response } from "mmdb-lib";

export interface IpFacts {
  readonly country: string | null;
  readonly asn: number | null;
  readonly location: GeoPoint | null;
}

export interface IpData {
  lookup(ip: string): IpFacts;
}

export interface IpDataFiles {
  readonly countryDb?: string | undefined;
  readonly asnDb?: string | undefined;
  readonly cityDb?: string | undefined;
}

/** A field of a record, read through the shapes of the common vendors: MaxMind's nested one, ip-location-db's flat one. */
function field(record: unknown, ...path: string[]): unknown {
  let value = record;
  for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
const number = (value: unknown) => (typeof value === "number" ? value : typeof value === "string" && value !== "" ? Number(value) : undefined);

export function defaultCountryDbPath(): string {
  return createRequire(import.meta.url).resolve("@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb");
}

function open(path: string, what: string): Reader<Response> {
  try {
    return new Reader<Response>(readFileSync(path));
  } catch (error) {
    throw new Error(`${what} ${path} is not a readable MMDB file (${error instanceof Error ? error.message : String(error)})`);
  }
}

function read(reader: Reader<Response> | null, ip: string): unknown {
  if (reader === null) return null;
  try {
    return reader.get(ip);
  } catch {
    // Not an address the database can hold (a malformed or scoped one): nothing is known of it.
    return null;
  }
}

export function openIpData(files: IpDataFiles = {}): IpData {
  const country = open(files.countryDb ?? defaultCountryDbPath(), "IP_COUNTRY_DB");
  const asn = files.asnDb === undefined ? null : open(files.asnDb, "IP_ASN_DB");
  const city = files.cityDb === undefined ? null : open(files.cityDb, "IP_CITY_DB");
  return {
    lookup(ip) {
      const cityRecord = read(city, ip);
      const countryRecord = cityRecord ?? read(country, ip);
      const code = text(field(countryRecord, "country_code")) ?? text(field(countryRecord, "country", "iso_code"));
      const asnRecord = read(asn, ip);
      const asnValue = number(field(asnRecord, "autonomous_system_number")) ?? number(field(asnRecord, "asn"));
      const latitude = number(field(cityRecord, "location", "latitude")) ?? number(field(cityRecord, "latitude"));
      const longitude = number(field(cityRecord, "location", "longitude")) ?? number(field(cityRecord, "longitude"));
      return {
        country: code === undefined ? null : code.toUpperCase(),
        asn: asnValue !== undefined && Number.isInteger(asnValue) && asnValue > 0 ? asnValue : null,
        location: latitude === undefined || longitude === undefined || Number.isNaN(latitude + longitude) ? null : { latitude, longitude },
      };
    },
  };
}

/** The core's port over the data; the data is read once at start, so a lookup is in memory. */
export function ipLocatorOver(data: IpData): IpLocator {
  return { locate: (ip) => data.lookup(ip) };
}
