const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A moment (epoch milliseconds) in the reader's locale and time zone; `never` when there is none. */
export function formatMoment(ms: number | null, never = "never"): string {
  return ms === null ? never : FORMAT.format(new Date(ms));
}
