import { browserPasskeys, type WalletAuthClient } from '../../client/src/index.js';
import { announcer, checkbox, field, h, onSubmit, show } from './dom.js';
import { failureText, PageMessage } from './messages.js';
import { COMPANY_ID_PATTERN, companyClient, rememberCompany, rememberedCompany, type Staff, staffOf } from './staff.js';

// Signing in (API contract 3.14, the console): first a passkey (3.16: the company ID alone, the
// browser finds the employee's passkey, a strong session at once, no SMS); else the company ID,
// the employee's phone and a login code by SMS; on a browser the agent chose to remember, the
// login PIN alone, signed by the browser's device key.

export interface SignInOptions {
  /** Said above the form: why the agent is here again (signed out, session ended). */
  message?: string;
  /** Told of the ending of a session this screen began. */
  onSessionEnd: () => void;
  onSignedIn: (staff: Omit<Staff, 'reason'>) => void;
}

const LOGIN = { user_type: 1, otp_type: 1 } as const;

/** The sign-in screen: the PIN form when this browser holds a key for the remembered company, else the code forms. */
export async function showSignIn(root: HTMLElement, options: SignInOptions): Promise<void> {
  const companyId = rememberedCompany();
  if (companyId && COMPANY_ID_PATTERN.test(companyId)) {
    const client = companyClient(companyId, options.onSessionEnd);
    if (await client.auth.hasBoundDevice().catch(() => false)) {
      showPinSignIn(root, client, companyId, options);
      return;
    }
  }
  showCodeSignIn(root, options);
}

/**
 * Signs in with a passkey of the company (a discoverable credential: no phone typed) on this
 * browser's WebAuthn; the same screen then shows the staff check's refusal, or the browser's or the
 * service's. A refused assertion says nothing of which accounts exist (401 code 4).
 */
async function passkeySignIn(companyId: string, options: SignInOptions, errors: { say: (text: string) => void; clear: () => void }) {
  errors.clear();
  const client = companyClient(companyId, options.onSessionEnd);
  try {
    await client.auth.loginWithPasskey(browserPasskeys());
  } catch (error) {
    const refused = (error as { status?: number }).status === 401;
    errors.say(
      refused
        ? `That passkey was not accepted: it is not a passkey of this company's accounts, or it was removed. Sign in with a code. (HTTP 401, code ${(error as { codes?: number[] }).codes?.join(', ')})`
        : failureText(error),
    );
    return;
  }
  rememberCompany(companyId);
  await finish(client, companyId, options, errors);
}

/** A button that runs its work once at a time (disabled meanwhile). */
function busyButton(label: string, work: () => Promise<void>, className?: string): HTMLButtonElement {
  const button = h('button', { type: 'button', ...(className ? { class: className } : {}) }, label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await work();
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** Checks that the session's user is staff, else ends that session and says why. */
async function finish(client: WalletAuthClient, companyId: string, options: SignInOptions, errors: { say: (text: string) => void }) {
  try {
    options.onSignedIn(await staffOf(client, companyId));
  } catch (error) {
    await client.auth.logout().catch(() => undefined);
    errors.say(failureText(error));
  }
}

function heading(options: SignInOptions) {
  return [
    h('h1', { id: 'sign-in-title', tabindex: '-1' }, 'Sign in to the console'),
    options.message ? h('p', { class: 'message status', role: 'status' }, options.message) : null,
  ];
}

function showCodeSignIn(root: HTMLElement, options: SignInOptions): void {
  const errors = announcer('alert');
  const progress = announcer('status');
  const company = field('Company ID', {
    required: true,
    autocomplete: 'organization',
    spellcheck: 'false',
    pattern: '[0-9a-fA-F]{32}',
    value: rememberedCompany() ?? '',
    hint: '32 characters, 0-9 and a-f: your company’s administrator gives it.',
  });
  const dialCode = field('Dial code', { required: true, value: '+1', inputmode: 'tel', autocomplete: 'tel-country-code', size: 5 });
  const phone = field('Phone number', {
    type: 'tel',
    required: true,
    autocomplete: 'tel-national',
    hint: 'Your own phone, as an employee of the company.',
  });
  const withPasskey = busyButton('Sign in with a passkey', async () => {
    const companyId = company.input.value.trim().toLowerCase();
    if (!COMPANY_ID_PATTERN.test(companyId)) {
      errors.say('The company ID must be 32 characters, 0-9 and a-f.');
      company.input.focus();
      return;
    }
    await passkeySignIn(companyId, options, errors);
  });
  const sendForm = h(
    'form',
    { 'aria-labelledby': 'sign-in-title', novalidate: true },
    company.row,
    h('p', { class: 'actions' }, withPasskey),
    h('p', { class: 'or' }, 'Or with a login code sent to your phone by SMS:'),
    dialCode.row,
    phone.row,
    h('button', { type: 'submit' }, 'Send code'),
  );

  const code = field('Login code', {
    required: true,
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}',
    maxlength: 6,
  });
  const remember = checkbox(
    'Remember this browser',
    'Keeps a key on this browser that cannot be copied off it: next time your login PIN is enough. Leave it off on a shared computer.',
  );
  const codeForm = h('form', { hidden: true }, code.row, remember.row, h('button', { type: 'submit' }, 'Sign in'));
  let client: WalletAuthClient | undefined;
  let target: { companyId: string; dial_code: string; phone_number: string } | undefined;

  onSubmit(sendForm, async () => {
    errors.clear();
    const companyId = company.input.value.trim().toLowerCase();
    if (!COMPANY_ID_PATTERN.test(companyId)) {
      errors.say('The company ID must be 32 characters, 0-9 and a-f.');
      company.input.focus();
      return;
    }
    if (!phone.input.value.trim()) {
      errors.say('Enter your phone number.');
      phone.input.focus();
      return;
    }
    client = companyClient(companyId, options.onSessionEnd, () => remember.input.checked);
    target = { companyId, dial_code: dialCode.input.value.trim(), phone_number: phone.input.value.trim() };
    try {
      const sent = await client.auth.sendCode({ dial_code: target.dial_code, phone_number: target.phone_number, ...LOGIN });
      rememberCompany(companyId);
      progress.say(
        `If this number belongs to an employee of the company, a code is on its way by SMS. It is valid ${Math.round(sent.expires_in / 60)} minutes.`,
      );
      codeForm.hidden = false;
      code.input.focus();
    } catch (error) {
      errors.say(failureText(error));
    }
  });

  onSubmit(codeForm, async () => {
    errors.clear();
    if (!client || !target) return;
    try {
      const { companyId, ...phoneNumber } = target;
      await client.auth.verifyCode({ ...phoneNumber, ...LOGIN, otp: code.input.value.trim() }, { bindDevice: remember.input.checked });
      await finish(client, companyId, options, errors);
    } catch (error) {
      errors.say(failureText(error));
      code.input.select();
    }
  });

  show(root, h('section', { class: 'sign-in' }, heading(options), sendForm, progress.region, codeForm, errors.region));
  (rememberedCompany() ? phone.input : company.input).focus();
}

function showPinSignIn(root: HTMLElement, client: WalletAuthClient, companyId: string, options: SignInOptions): void {
  const errors = announcer('alert');
  const pin = field('Login PIN', { type: 'password', required: true, inputmode: 'numeric', autocomplete: 'off', maxlength: 6 });
  const form = h('form', { 'aria-labelledby': 'sign-in-title' }, pin.row, h('button', { type: 'submit' }, 'Sign in with PIN'));
  onSubmit(form, async () => {
    errors.clear();
    try {
      await client.auth.loginWithPin(pin.input.value);
      await finish(client, companyId, options, errors);
    } catch (error) {
      pin.input.value = '';
      // 401 to a PIN login: this browser's key is no longer bound (removed, or the account changed).
      if ((error as { status?: number }).status === 401) {
        await client.auth.forgetDevice();
        errors.say(failureText(new PageMessage('This browser is no longer a trusted device of your account. Sign in with a code.')));
        return;
      }
      errors.say(failureText(error));
    }
  });
  const useCode = h(
    'button',
    { type: 'button', class: 'link', onclick: () => showCodeSignIn(root, options) },
    'Sign in with a code instead',
  );
  const forget = h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: async () => {
        await client.auth.forgetDevice();
        showCodeSignIn(root, { ...options, message: 'This browser no longer holds a key: sign in with a code.' });
      },
    },
    'Forget this browser',
  );
  show(
    root,
    h(
      'section',
      { class: 'sign-in' },
      heading(options),
      h('p', null, 'This browser is remembered for company ', h('code', null, companyId), '. Your passkey or your login PIN signs you in.'),
      h(
        'p',
        { class: 'actions' },
        busyButton('Sign in with a passkey', () => passkeySignIn(companyId, options, errors)),
      ),
      form,
      errors.region,
      h('p', { class: 'actions' }, useCode, forget),
    ),
  );
  pin.input.focus();
}
