// What an agent types into "Find a user", as the search's one exact key (API contract 3.14): a
// phone in E.164, an email, a user id (32 hex) or a referral code. Pure, so a test checks it.

export type SearchKey = { phone: string } | { email: string } | { user_id: string } | { referral_code: string };

/** The key a typed value is, or undefined when it is none of them. */
export function searchKey(typed: string): SearchKey | undefined {
  const value = typed.trim();
  const digits = value.replace(/[\s().-]/g, '');
  if (/^\+[1-9]\d{6,14}$/.test(digits)) return { phone: digits };
  if (value.includes('@')) return { email: value };
  if (/^[0-9a-fA-F]{32}$/.test(value)) return { user_id: value.toLowerCase() };
  if (/^[0-9A-Za-z]{4,32}$/.test(value)) return { referral_code: value.toUpperCase() };
  return undefined;
}

/** The key's kind, as the page names it. */
export function keyName(key: SearchKey): string {
  if ('phone' in key) return 'phone number';
  if ('email' in key) return 'email';
  if ('user_id' in key) return 'user id';
  return 'referral code';
}
