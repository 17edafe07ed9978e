/**
 * Hosting networks a person rarely signs in from and a credential-stuffing run often does: a small, well-known
 * sample (docs/risk.md says where it comes from), not an exhaustive list. The operator adds their own with
 * `RISK_ANONYMIZER_ASNS`.
 */
export const DEFAULT_ANONYMIZER_ASNS: readonly number[] = [
  16509, // Amazon (AWS)
  14618, // Amazon (AWS)
  396982, // Google Cloud
  8075, // Microsoft (Azure)
  14061, // DigitalOcean
  16276, // OVH
  24940, // Hetzner
  63949, // Linode (Akamai)
  9009, // M247 (many commercial VPNs)
];

/** The largest 32-bit AS number (RFC 6793). */
const MAX_ASN = 4_294_967_295;

/** Whether `value` is an AS number (0 to 2^32 - 1). */
export function isAsn(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_ASN;
}

/** The shipped list and the operator's, as one set. */
export function anonymizerAsns(operatorAsns: readonly number[]): ReadonlySet<number> {
  return new Set([...DEFAULT_ANONYMIZER_ASNS, ...operatorAsns]);
}
