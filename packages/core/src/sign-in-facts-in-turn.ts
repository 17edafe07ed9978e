import type { MfaChallenge, Device } from "./model.ts";
import type { ClaimedChallenge, DeviceStore, SignInFacts, SignInFactsStore } from "./ports.ts";

/**
 * The two combined reads of the ports, for a store that cannot make each one statement (the memory stores,
 * SQLite, which allows no INSERT or UPDATE in a WITH clause): the same answers, from the plain calls in turn.
 * Inside a unit of work they see one state; PostgreSQL answers each in one statement instead.
 */

/** `SignInFactsStore.readSeeingDevice` from `read` and `DeviceStore.getOrCreate`: only a member's sign-in stores a device. */
export async function readSeeingDeviceInTurn(
  read: SignInFactsStore["read"],
  devices: Pick<DeviceStore, "getOrCreate">,
  candidate: Device,
): Promise<SignInFacts | null> {
  const facts = await read(candidate.userId, candidate.orgId, null);
  if (facts === null || facts.membership === null) return facts;
  return { ...facts, device: (await devices.getOrCreate(candidate)).device };
}

/** `ChallengeStore.claimAttempt`'s answer for the challenge a plain claim returned: its sign-in facts, read after the claim. */
export async function claimedWithFacts(claimed: MfaChallenge | null, read: SignInFactsStore["read"]): Promise<ClaimedChallenge | null> {
  if (claimed === null) return null;
  return { challenge: claimed, facts: await read(claimed.userId, claimed.orgId, claimed.deviceId) };
}
