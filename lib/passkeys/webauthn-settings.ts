import { AppError, ErrorCodes } from '../errors.js';

// A company's WebAuthn settings (API contract 3.16): the relying party id its passkeys are bound to
// and the origins an assertion may come from. Set by the operator (company:create, company:update)
// and by company/update as a security setting (another admin approves it). Without them every
// passkey route answers 400 code 1 naming `webauthn`.

export interface WebauthnSettings {
  /** A registrable domain the company's apps and pages are associated with (lower case), or localhost. */
  rp_id: string;
  /** Web origins (https://host[:port], http://localhost[:port]) and Android `android:apk-key-hash:<base64url SHA-256>` origins. */
  origins: string[];
}

/** At most this many origins: related origins (WebAuthn L3) allow a handful of labels anyway. */
export const WEBAUTHN_ORIGINS_MAX = 20;

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** An APK signing certificate's SHA-256, base64url without padding: 43 characters. */
const APK_KEY_HASH = /^android:apk-key-hash:[A-Za-z0-9_-]{43}$/;

/** What is wrong with an rp_id, or undefined. */
export function rpIdProblem(rpId: string): string | undefined {
  if (rpId === 'localhost' || DOMAIN.test(rpId)) return undefined;
  return 'must be a lower-case domain name (such as wallet.example.com) or localhost, no scheme or port';
}

/** What is wrong with one origin, or undefined. */
export function originProblem(origin: string): string | undefined {
  if (origin.startsWith('android:')) {
    return APK_KEY_HASH.test(origin)
      ? undefined
      : 'an Android origin is android:apk-key-hash: and the base64url SHA-256 of the app’s signing certificate (43 characters)';
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'must be a web origin (https://host[:port]) or an android:apk-key-hash: origin';
  }
  if (url.origin !== origin) return 'must be an origin exactly: scheme, host and port only, lower case, no path or trailing slash';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && url.hostname === 'localhost') return undefined;
  return 'must use https (http only for localhost)';
}

/** Every problem of a webauthn setting, by its field (webauthn.rp_id, webauthn.origins.N). */
export function webauthnProblems(settings: { rp_id: string; origins: string[] }): { field: string; detail: string }[] {
  const problems: { field: string; detail: string }[] = [];
  const rp = rpIdProblem(settings.rp_id);
  if (rp) problems.push({ field: 'webauthn.rp_id', detail: rp });
  if (settings.origins.length < 1 || settings.origins.length > WEBAUTHN_ORIGINS_MAX) {
    problems.push({ field: 'webauthn.origins', detail: `takes 1 to ${WEBAUTHN_ORIGINS_MAX} origins` });
  }
  settings.origins.forEach((origin, index) => {
    const problem = originProblem(origin);
    if (problem) problems.push({ field: `webauthn.origins.${index}`, detail: problem });
  });
  return problems;
}

/** The origins an assertion may come from: the listed ones, and https://<rp_id> itself. */
export function expectedOrigins(settings: WebauthnSettings): string[] {
  const own = settings.rp_id === 'localhost' ? [] : [`https://${settings.rp_id}`];
  return [...new Set([...settings.origins, ...own])];
}

/** The company's settings, or 400 code 1 naming `webauthn` when it has none (API contract 3.16). */
export function requireWebauthn(company: { webauthn?: WebauthnSettings | undefined }): WebauthnSettings {
  if (!company.webauthn) {
    throw new AppError('BAD_REQUEST', {
      detail: 'passkeys are not set up for this company',
      fields: [{ code: ErrorCodes.BAD_REQUEST.code, field: 'webauthn', detail: 'the company has no webauthn settings (rp_id, origins)' }],
    });
  }
  return company.webauthn;
}
