/**
 * What people type for an org (a slug, an id) or a user (an email, an id), resolved by the command line itself
 * through the facade's lookups: the facade takes ids.
 */
import { GatehouseError, SYSTEM_ACTOR, type Actor, type Gatehouse, type User } from "@gatehouse/core";

/** The org an argument names (its slug in any case, else its id), as its id. */
export async function orgIdOf(gatehouse: Gatehouse, reference: string): Promise<string> {
  try {
    return (await gatehouse.admin.findOrg(SYSTEM_ACTOR, { slug: reference })).id;
  } catch (error) {
    if (!(error instanceof GatehouseError) || error.kind !== "not_found") throw error;
  }
  return (await gatehouse.admin.findOrg(SYSTEM_ACTOR, { id: reference })).id;
}

/** The account an argument names: by email (anything with an @) or by id. */
export const userOf = (gatehouse: Gatehouse, actor: Actor, reference: string): Promise<User> =>
  gatehouse.admin.findUser(actor, reference.includes("@") ? { email: reference } : { id: reference });

/** The id of the account with this email; `unknown` is the refusal's message when there is none. */
export async function userIdOfEmail(gatehouse: Gatehouse, actor: Actor, email: string, unknown: string): Promise<string> {
  try {
    return (await gatehouse.admin.findUser(actor, { email })).id;
  } catch (error) {
    if (error instanceof GatehouseError && error.kind === "not_found") throw new GatehouseError("not_found", unknown);
    throw error;
  }
}

/** The user id an argument names; an id is passed on as typed, for the call it is given to to check. */
export const userIdOf = (gatehouse: Gatehouse, actor: Actor, reference: string, unknownEmail = "user not found"): Promise<string> =>
  reference.includes("@") ? userIdOfEmail(gatehouse, actor, reference, unknownEmail) : Promise.resolve(reference);
