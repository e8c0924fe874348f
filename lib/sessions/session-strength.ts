import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import type { Acr } from '../store/session-store.js';

// How strong a session is (API contract 3.15): a code sent to the phone number is a restricted
// authenticator (NIST SP 800-63B-4), which a SIM swapper receives too. A session is strong when it
// began by PIN login on a settled device (or a passkey, 3.16); every other one is SMS-strength.
// Its strength is fixed when it begins, for its whole life (refreshes included); a step-up makes
// a strong session fresh again, never an SMS-strength one strong.

/** What a refused request needs (403 code 5, `data.needs`). */
export type Needs = 'strong' | 'strong_fresh' | 'pin_setup';

/**
 * A stored session's strength. Sessions from before strength was kept began by PIN login on a
 * device bound before 3.15, and every such device counts as settled (the contract's migration).
 */
export function acrOfSession(session: { acr?: Acr | undefined; began?: string | undefined }): Acr {
  return session.acr ?? (session.began === 'pin' ? 'strong' : 'sms');
}

/** 403 code 5 saying what the request needs. */
export function needs(what: Needs, detail: string): AppError {
  return new AppError('FORBIDDEN', { detail, data: { needs: what } });
}

/** Whether the presenting session is strong. */
export function isStrong(principal: Principal): boolean {
  return principal.session?.acr === 'strong';
}

/** Whether the presenting session is strong and was proven less than STEP_UP_MAX_AGE_SECONDS ago (a login or a step-up). */
export function isFreshStrong(app: Pick<App, 'clock' | 'config'>, principal: Principal): boolean {
  const session = principal.session;
  return session?.acr === 'strong' && epochSeconds(app.clock) - session.authTime < app.config.stepUpMaxAgeSeconds;
}

/** Refuses (403 code 5, needs strong) a session that is not strong. */
export function requireStrong(principal: Principal, what = 'this'): void {
  if (!isStrong(principal)) {
    throw needs('strong', `${what} needs a strong session: a PIN login on a settled device, or a passkey`);
  }
}

/** Refuses a session that is not strong (needs strong) or was proven too long ago (needs strong_fresh: step up). */
export function requireFreshStrong(app: Pick<App, 'clock' | 'config'>, principal: Principal, what = 'this'): void {
  requireStrong(principal, what);
  if (!isFreshStrong(app, principal)) {
    const minutes = Math.round(app.config.stepUpMaxAgeSeconds / 60);
    throw needs(
      'strong_fresh',
      `${what} needs a strong session proven under ${minutes} minutes ago: step up (POST /wallet/v3/auth/step_up)`,
    );
  }
}
