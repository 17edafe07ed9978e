/**
 * Reads a login history in the column layout of the open RBA dataset (das-group/rba-dataset, CC BY 4.0):
 * columns found by their header names, so its leading index column or a different order does not matter.
 * Filled columns are used as given; an empty country, ASN or user-agent column is looked up offline.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { LabelledSignIn } from "@gatehouse/core";
import type { IpData } from "./ip-data.ts";
import { browserMajor, parseUserAgent } from "./user-agent.ts";

const COLUMNS = {
  at: "Login Timestamp",
  user: "User ID",
  rtt: "Round-Trip Time [ms]",
  ip: "IP Address",
  country: "Country",
  asn: "ASN",
  userAgent: "User Agent String",
  browser: "Browser Name and Version",
  os: "OS Name and Version",
  deviceType: "Device Type",
  successful: "Login Successful",
  takeover: "Is Account Takeover",
} as const;

export class DatasetError extends Error {}

/** One CSV line's fields (RFC 4180 quoting; a quoted field does not span lines in this dataset). */
export function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      fields.push(field);
      field = "";
    } else field += char;
  }
  fields.push(field);
  return fields;
}

const truthy = (value: string) => /^(true|1)$/i.test(value.trim());

/** The dataset's rows as labelled sign-ins, oldest first; a row out of time order is refused. */
export async function* readRbaDataset(path: string, ipData: IpData): AsyncGenerator<LabelledSignIn> {
  const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Number.POSITIVE_INFINITY });
  let index: Record<keyof typeof COLUMNS, number> | null = null;
  let lineNumber = 0;
  let previousAt = Number.NEGATIVE_INFINITY;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === "") continue;
    const fields = csvFields(line);
    if (index === null) {
      const header = fields.map((each) => each.trim());
      const found = Object.fromEntries(Object.entries(COLUMNS).map(([key, name]) => [key, header.indexOf(name)])) as Record<keyof typeof COLUMNS, number>;
      const missing = Object.entries(found).filter(([key, at]) => at < 0 && !["rtt", "country", "asn", "browser", "os", "deviceType"].includes(key));
      if (missing.length > 0)
        throw new DatasetError(`${path}: the header lacks ${missing.map(([key]) => `"${COLUMNS[key as keyof typeof COLUMNS]}"`).join(", ")}`);
      index = found;
      continue;
    }
    const get = (key: keyof typeof COLUMNS) => (index![key] < 0 ? "" : (fields[index![key]] ?? "").trim());
    const at = Date.parse(`${get("at").replace(" ", "T")}${/[zZ]|[+-]\d\d:?\d\d$/.test(get("at")) ? "" : "Z"}`);
    if (Number.isNaN(at)) throw new DatasetError(`${path}:${lineNumber}: "${get("at")}" is not a timestamp`);
    if (at < previousAt) throw new DatasetError(`${path}:${lineNumber}: rows must come oldest first`);
    previousAt = at;
    const ip = get("ip");
    const looked = get("country") === "" || get("asn") === "" ? ipData.lookup(ip) : null;
    const userAgent = get("userAgent");
    const parsed = get("browser") === "" || get("os") === "" || get("deviceType") === "" ? parseUserAgent(userAgent) : null;
    const asn = get("asn") === "" ? (looked?.asn ?? null) : Number(get("asn"));
    const rtt = get("rtt") === "" ? null : Number(get("rtt"));
    yield {
      userId: get("user"),
      successful: truthy(get("successful")),
      accountTakeover: truthy(get("takeover")),
      observation: {
        at,
        ip,
        country: get("country") === "" ? (looked?.country ?? null) : get("country").toUpperCase(),
        asn: asn !== null && Number.isInteger(asn) ? asn : null,
        location: looked?.location ?? null,
        userAgent,
        browser: get("browser") === "" ? (parsed?.browser ?? null) : browserMajor(get("browser")),
        os: get("os") === "" ? (parsed?.os ?? null) : get("os"),
        deviceType: get("deviceType") === "" ? (parsed?.deviceType ?? null) : get("deviceType"),
        rttMs: rtt !== null && Number.isFinite(rtt) ? rtt : null,
      },
    };
  }
  if (index === null) throw new DatasetError(`${path}: empty; expected the RBA dataset's header`);
}
