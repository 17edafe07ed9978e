/** The token of an `Authorization: Bearer <token>` header, or "" when there is none. */
export function bearerToken(header: string | null | undefined): string {
  if (!header) return "";
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? "";
}
