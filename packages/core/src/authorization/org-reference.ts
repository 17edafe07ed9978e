import type { Context } from "../context.ts";
import { requireId } from "../input.ts";
import { isUuidShaped, isValidSlug } from "./org-slug.ts";

/**
 * Login's `org_id` names the org by id or by slug, so people can type "acme" (or "Acme") while
 * API clients keep sending ids. Checked for shape only: resolve it after the password check.
 */
export function requireOrgReference(value: string): string {
  return requireId("org_id", value.trim());
}

/**
 * A UUID is an id. Anything else is first looked up as a slug (case-insensitively: slugs are
 * stored lower-case); when no org has that slug it stays an id, for embedders whose org ids are
 * not UUIDs. An unknown org then simply has no membership, the same answer as a wrong org.
 */
export async function resolveOrgId(ctx: Context, reference: string): Promise<string> {
  if (isUuidShaped(reference)) return reference;
  const slug = reference.toLowerCase();
  if (!isValidSlug(slug)) return reference;
  return (await ctx.stores.orgs.findBySlug(slug))?.id ?? reference;
}
