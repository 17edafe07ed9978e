const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: "Who you are, your organization and your role there",
  email: "Your email address",
  profile: "Your name",
  offline_access: "Staying signed in when you are away (until you sign out of Gatehouse)",
};

/** What a scope shows the member on the consent screen; an unknown one as it was asked. */
export function describeScope(scope: string): string {
  return SCOPE_TEXT[scope] ?? scope;
}
