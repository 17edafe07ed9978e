import { DEFAULT_ORG_MFA_SETTINGS, DEFAULT_PLATFORM_SETTINGS, type OrgMfaSettings, type PlatformSettings } from "./model.ts";
import type { SignInFacts } from "./ports.ts";

export interface EffectiveSettings {
  readonly platform: PlatformSettings;
  readonly org: OrgMfaSettings;
}

/** Stored settings, or the defaults of architecture.md where none were stored. */
export function effectiveSettings({ platform, org }: SignInFacts["settings"]): EffectiveSettings {
  return { platform: platform ?? DEFAULT_PLATFORM_SETTINGS, org: org ?? DEFAULT_ORG_MFA_SETTINGS };
}
