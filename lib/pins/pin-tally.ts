import type { Principal } from '../call.js';
import type { PinType } from '../store/pin-store.js';

// Which tally a PIN entered in a session counts on (API contract 3.15): the login PIN on the
// session's device (none: the tally of sessions with no device), the transaction PIN on its
// session's strength; and whether it counts on the day's cap, which a strong session's login PIN
// does not (its device is settled: the cap is for devices a code bound).

export function sessionPinTally(principal: Principal, pinType: PinType): { tally: string | undefined; daily: boolean } {
  const strong = principal.session?.acr === 'strong';
  if (pinType === 'login') return { tally: principal.session?.deviceKey, daily: !strong };
  return { tally: strong ? undefined : 'sms', daily: true };
}
