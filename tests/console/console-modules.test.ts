// The console's pure modules (console/src): what an agent's typed key is searched as, and the
// sentence and values the page shows for a refusal. No page, no service: what they return.
import { describe, expect, it } from 'vitest';
import { WalletAuthError } from '../../client/src/index.js';
import { OPERATION_HELPERS } from '../../client/src/operations.js';
import { maskedPhone, statusName, wait } from '../../console/src/format.js';
import { failureText, PageMessage } from '../../console/src/messages.js';
import { keyName, searchKey } from '../../console/src/search-key.js';
import { endpoints } from '../../lib/api/endpoints.js';
import { ErrorCodes } from '../../lib/errors.js';
import { chainErrors } from '../../lib/http/middleware.js';

describe('searchKey', () => {
  it.each([
    ['+1 (202) 555-0143', { phone: '+12025550143' }, 'phone number'],
    ['  +442071838750 ', { phone: '+442071838750' }, 'phone number'],
    ['Ada.Lovelace@example.com', { email: 'Ada.Lovelace@example.com' }, 'email'],
    ['0123456789ABCDEF0123456789abcdef', { user_id: '0123456789abcdef0123456789abcdef' }, 'user id'],
    ['ab12cd', { referral_code: 'AB12CD' }, 'referral code'],
  ])('reads %j as %j, a %s', (typed, key, name) => {
    expect(searchKey(typed)).toEqual(key);
    expect(keyName(searchKey(typed)!)).toBe(name);
  });

  it.each(['', '   ', 'ab cd', '+0123456', '+1 202', 'abc', 'ab-12-cd', `${'a'.repeat(33)}`])(
    'finds no key in %j: nothing is searched',
    (typed) => expect(searchKey(typed)).toBeUndefined(),
  );
});

describe("the page's sentence for a refusal", () => {
  /** Every refusal a route the console calls can answer: the chain's and the endpoint's own. */
  const consoleOperations = new Set<string>([
    ...Object.values(OPERATION_HELPERS.admin),
    'loginPhone',
    'verifyOtp',
    'loginPin',
    'logout',
    'tokenRefresh',
    'userProfile',
    'passkeysRegisterOptions',
    'passkeysRegister',
    'passkeys',
    'passkeysRemove',
    'passkeysLoginOptions',
    'passkeysLogin',
  ]);
  const answerable = new Set(
    Object.values(endpoints)
      .filter((endpoint) => consoleOperations.has(endpoint.operationId))
      .flatMap((endpoint) => [...chainErrors(endpoint), ...endpoint.errors]),
  );

  it.each([...answerable].sort())('has words of its own for %s', (name) => {
    const { code, status } = ErrorCodes[name];
    const text = failureText(new WalletAuthError(status, [code], { message: name }));
    expect(text).not.toContain('The service refused (');
    expect(text).toMatch(new RegExp(`\\(HTTP ${status}, code ${code}\\)$`));
  });

  it("adds each field's problem, the tries left and when to try again", () => {
    const error = new WalletAuthError(
      400,
      [17],
      { message: 'PIN_INVALID', attempts_left: 2, errors: [{ field: 'login_pin', detail: 'is wrong' }] },
      90,
    );
    expect(failureText(error)).toBe('Wrong PIN. login_pin: is wrong. 2 tries left. Try again in 90 s. (HTTP 400, code 17)');
  });

  it('names a code it has no words for, says when no answer came, and shows its own refusals and failures as they are', () => {
    expect(failureText(new WalletAuthError(409, [99], {}))).toBe('The service refused (CODE_99). (HTTP 409, code 99)');
    expect(failureText(new WalletAuthError(0, [], { message: 'NETWORK_ERROR' }))).toBe(
      'No answer from the service. Check the connection and try again. (HTTP 0, code none)',
    );
    expect(failureText(new PageMessage('Type a phone, email, user id or referral code.'))).toBe(
      'Type a phone, email, user id or referral code.',
    );
    expect(failureText(new TypeError('x is undefined'))).toBe('The page failed: x is undefined');
  });
  it("says what the browser's WebAuthn refusals mean: a dialog closed, a page outside the company's rp_id", () => {
    expect(failureText(new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'))).toMatch(
      /^No passkey was used/,
    );
    expect(failureText(new DOMException('The relying party ID is not a registrable domain suffix', 'SecurityError'))).toMatch(
      /not one your company’s passkeys are for \(its webauthn rp_id and origins\)/,
    );
    expect(failureText(new DOMException('odd', 'DataError'))).toBe('The page failed: odd');
  });
});

describe("the page's values", () => {
  it('writes a wait in seconds under 2 minutes, in minutes under 2 hours, else in hours, rounding up', () => {
    expect([0.2, 45, 119, 120, 3599, 7199, 7200, 86_400].map(wait)).toEqual([
      '1 s',
      '45 s',
      '119 s',
      '2 min',
      '60 min',
      '120 min',
      '2 h',
      '24 h',
    ]);
  });

  it('names each status of contract 6 and masks a phone to its last four digits', () => {
    expect([1, 2, 3, 4, 5, 9].map(statusName)).toEqual([
      'active',
      'disabled',
      'phone reclaimed by its verified owner',
      'deletion requested',
      'erased',
      'status 9',
    ]);
    expect(maskedPhone('0143')).toBe('•••• 0143');
  });
});
