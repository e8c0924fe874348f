import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { needs } from '../sessions/session-strength.js';
import { getSmsPayments, smsPaymentsPut } from '../store/sms-payment-store.js';
import type { TransactItem } from '../store/transactions.js';

// Payments approved from SMS-strength sessions (API contract 3.15, second reading): a phishing relay
// of the code and the transaction PIN pays at once, so such a session pays only within the company's
// sms_payment_limit for that currency over 24 hours (unset: not at all), and not at all while the user
// has a change that waits (a swapper's reset, a move of the number).

const DAY_SECONDS = 24 * 3600;
/** Amounts have at most 4 fraction digits (payment-fields.ts): counted in ten-thousandths, exactly. */
const SCALE = 4;

/** A normalised decimal amount in ten-thousandths, as an exact integer. */
export function tenThousandths(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
}

/**
 * The write that counts this SMS-strength payment in its currency's 24 hours, or 403 code 5 (needs
 * strong) when the company allows none in that currency or it would pass the limit. The write holds
 * the version it read: a payment approved meanwhile refuses it, and it is read again.
 */
export async function smsPaymentWrite(
  app: Pick<App, 'table' | 'clock'>,
  company: Pick<Company, 'sms_payment_limit'>,
  target: { companyId: string; userId: string },
  payment: { amount: string; currency: string },
): Promise<TransactItem> {
  const limit = company.sms_payment_limit?.[payment.currency];
  const refused = (detail: string) =>
    needs('strong', `${detail}: approve it from a strong session (a PIN login on a settled device, or a passkey)`);
  if (limit === undefined) throw refused(`this company allows no ${payment.currency} payment from a session an SMS code alone opened`);
  const now = epochSeconds(app.clock);
  const window = await getSmsPayments(app.table, target.companyId, target.userId, payment.currency);
  const kept = window.entries.filter((entry) => Number(entry.split(':')[0]) > now - DAY_SECONDS);
  const spent = kept.reduce((sum, entry) => sum + BigInt(entry.split(':')[1] ?? '0'), 0n);
  const amount = tenThousandths(payment.amount);
  if (spent + amount > tenThousandths(limit)) {
    throw refused(`past this company's limit of ${limit} ${payment.currency} a day for payments from a session an SMS code alone opened`);
  }
  return smsPaymentsPut(
    app.table,
    { ...target, currency: payment.currency },
    { entries: [...kept, `${now}:${amount}`], seenVersion: window.version, expiresAt: now + DAY_SECONDS },
  );
}
