/**
 * Offline IP data: country, AS number and (with a city database) a location for an address, read from MMDB
 * files in memory, never over the network. The default country data (`@ip-location-db/geo-whois-asn-country-mmdb`,
 * built from the regional registries' data) installs with the package; an operator's own files (MaxMind
 * GeoLite2/GeoIP2, DB-IP, IPinfo, ip-location-db) replace or complete it through IP_COUNTRY_DB, IP_ASN_DB, IP_CITY_DB.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { GeoPoint } from "@gatehouse/core";
import { Reader } from "mmdb-lib";

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

/** The record shapes of the common MMDB vendors: MaxMind's nested one and ip-location-db's flat one. */
interface MmdbRecord {
  readonly country_code?: string;
  readonly country?: { readonly iso_code?: string };
  readonly autonomous_system_number?: number;
  readonly asn?: number | string;
  readonly location?: { readonly latitude?: number; readonly longitude?: number };
  readonly latitude?: number;
  readonly longitude?: number;
}

export function defaultCountryDbPath(): string {
  return createRequire(import.meta.url).resolve("@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb");
}

function open(path: string, what: string): Reader<MmdbRecord> {
  try {
    return new Reader<MmdbRecord>(readFileSync(path));
  } catch (error) {
    throw new Error(`${what} ${path} is not a readable MMDB file (${error instanceof Error ? error.message : String(error)})`);
  }
}

function read(reader: Reader<MmdbRecord> | null, ip: string): MmdbRecord | null {
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
      const countryRecord = read(city, ip) ?? read(country, ip);
      const code = countryRecord?.country_code ?? countryRecord?.country?.iso_code ?? null;
      const asnRecord = read(asn, ip);
      const asnValue = Number(asnRecord?.autonomous_system_number ?? asnRecord?.asn ?? Number.NaN);
      const cityRecord = read(city, ip);
      const latitude = cityRecord?.location?.latitude ?? cityRecord?.latitude;
      const longitude = cityRecord?.location?.longitude ?? cityRecord?.longitude;
      return {
        country: code === null ? null : code.toUpperCase(),
        asn: Number.isInteger(asnValue) && asnValue > 0 ? asnValue : null,
        location: latitude === undefined || longitude === undefined ? null : { latitude, longitude },
      };
    },
  };
}
