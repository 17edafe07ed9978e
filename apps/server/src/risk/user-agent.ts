import Bowser from "bowser";

/** What a user agent says of the client, in the RBA dataset's terms. */
export interface UserAgentFacts {
  /** Name and major version, such as "Chrome 131". */
  readonly browser: string | null;
  /** Name and version, such as "Windows 10" or "iOS 17.5". */
  readonly os: string | null;
  /** desktop, mobile, tablet, tv or null. */
  readonly deviceType: string | null;
}

/** A browser name and version as the dataset writes it ("Chrome 79.0.3945"), cut to the major version. */
export function browserMajor(nameAndVersion: string): string | null {
  const match = /^(.*?)\s+(\d+)(?:[.\d]*)\s*$/.exec(nameAndVersion.trim());
  if (match === null) return nameAndVersion.trim() === "" ? null : nameAndVersion.trim();
  return `${match[1]} ${match[2]}`;
}

export function parseUserAgent(userAgent: string): UserAgentFacts {
  if (userAgent.trim() === "") return { browser: null, os: null, deviceType: null };
  const parsed = Bowser.parse(userAgent);
  const browser = parsed.browser.name === undefined ? null : browserMajor(`${parsed.browser.name} ${parsed.browser.version ?? ""}`);
  const osName = parsed.os.name;
  const os = osName === undefined ? null : [osName, parsed.os.versionName ?? parsed.os.version].filter((each) => each !== undefined && each !== "").join(" ");
  return { browser, os, deviceType: parsed.platform.type ?? null };
}
