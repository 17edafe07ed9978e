import type { Context } from "../context.ts";
import { invalidArgument } from "../errors.ts";
import { requireOrgAdmin, type Actor } from "../authorization/actor.ts";
import { checkUrl } from "../url-policy/check-url.ts";
import { compileAccessControlInSlices } from "../url-policy/compile.ts";
import type { BrowserPolicyInput, UrlDecision } from "../url-policy/types.ts";
import { validateBrowserPolicyInSlices } from "../url-policy/validate-policy.ts";

/**
 * What check-url would answer for `url` under a policy not saved yet: the same validation as a save (its
 * `invalid_argument` names every bad entry), the same compile and the same check. Nothing is stored or counted
 * against the org's policy writes; like every admin call it needs a fresh step-up.
 */
export async function testBrowserPolicy(ctx: Context, actor: Actor, orgId: string, draft: BrowserPolicyInput, url: string): Promise<UrlDecision> {
  await requireOrgAdmin(ctx, actor, orgId);
  if (url.trim() === "") throw invalidArgument("url", "is required");
  const policy = await validateBrowserPolicyInSlices(draft, ctx.pause);
  return checkUrl(await compileAccessControlInSlices(policy.accessControl, ctx.pause), url);
}
