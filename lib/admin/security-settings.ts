import type { CompanyUpdateInput } from './company-update-input.js';

// The company settings that one admin cannot change alone (API contract 3.14, round 6's second
// reading): company/update stores a change of any of them as a grant, and another admin applies it
// with company/approve. By company/update's field names: `sms_text` holds the code texts (the
// contract's sms_templates) with the autofill lines that say which app or site may read the code;
// `phone_change_texts` and `warning_texts` the warnings a held change or a new device sends, which a
// rewrite could turn into "ignore this".

export const SECURITY_SETTINGS = [
  'sms_text',
  'sms_countries',
  'phone_change_texts',
  'warning_texts',
  // Passkeys (contract 3.16): an rp_id or origin of the insider's choosing would let their own page take logins.
  'webauthn',
  // DPoP (contract 3.17): turned off, a copied token works again.
  'require_dpop',
  // What an SMS code alone may pay (contract 3.15): raised, a SIM swap pays more.
  'sms_payment_limit',
] as const satisfies readonly (keyof CompanyUpdateInput)[];

export type SecuritySetting = (typeof SECURITY_SETTINGS)[number];

/** The security settings a company/update body changes. */
export function securitySettingsIn(body: Partial<CompanyUpdateInput>): SecuritySetting[] {
  return SECURITY_SETTINGS.filter((name) => body[name] !== undefined);
}
