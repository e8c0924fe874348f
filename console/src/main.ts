import './console.css';
import { showAccount } from './account.js';
import { approvalsSection } from './approvals.js';
import { companySettingsSection } from './company-settings.js';
import { h, show } from './dom.js';
import { employeesSection } from './employees.js';
import { passkeysSection } from './passkeys.js';
import { searchSection } from './search.js';
import { keepSessionFresh, type SessionKeeper } from './session-keeper.js';
import { showSignIn } from './sign-in.js';
import type { Staff } from './staff.js';

// The console (API contract 3.14): sign in, then find a user, see the account and act; admins also
// keep employees' roles and the company's settings; everyone keeps their own passkeys (3.16). One
// page; each screen is a module of its own.

const root = document.getElementById('console') as HTMLElement;
let staff: Staff | undefined;
/** Set while this page signs out itself, so the end of the session reads "Signed out". */
let signingOut = false;
/** Keeps the session's access token fresh and a logout ready for the page's exit (session-keeper.ts). */
let keeper: SessionKeeper | undefined;

function sessionEnded(): void {
  if (!staff) return;
  staff = undefined;
  keeper?.stop();
  keeper = undefined;
  void signIn(signingOut ? 'Signed out.' : 'Your session has ended: sign in again.');
  signingOut = false;
}

function signIn(message?: string): Promise<void> {
  return showSignIn(root, {
    ...(message ? { message } : {}),
    onSessionEnd: sessionEnded,
    onSignedIn: (signedIn) => {
      staff = { ...signedIn, reason: '' };
      keeper = keepSessionFresh(staff.client);
      showShell(staff);
    },
  });
}

type Screen = 'find' | 'approvals' | 'employees' | 'settings' | 'passkeys';

function showShell(current: Staff, screen: Screen = 'find'): void {
  const main = h('div', { class: 'screen' });
  const navButton = (label: string, target: Screen) =>
    h(
      'button',
      { type: 'button', class: 'nav', 'aria-current': screen === target ? 'page' : null, onclick: () => showShell(current, target) },
      label,
    );
  const signOut = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        signingOut = true;
        await current.client.auth.logout().catch(() => sessionEnded());
      },
    },
    'Sign out',
  );
  const open = (userId: string) => void showAccount(main, current, userId);
  show(
    root,
    h(
      'header',
      { class: 'top' },
      h('p', { class: 'brand' }, 'Wallet console'),
      h(
        'p',
        { class: 'who' },
        'Signed in as ',
        h('strong', null, current.name),
        ` (${current.role}) · company `,
        h('code', null, current.companyId),
      ),
      signOut,
    ),
    h(
      'nav',
      { 'aria-label': 'Screens' },
      navButton('Find a user', 'find'),
      current.role === 'admin' ? navButton('Approvals', 'approvals') : null,
      current.role === 'admin' ? navButton('Employees and roles', 'employees') : null,
      current.role === 'admin' ? navButton('Company settings', 'settings') : null,
      navButton('Your passkeys', 'passkeys'),
    ),
    main,
  );
  if (screen === 'approvals' && current.role === 'admin') {
    show(main, approvalsSection(current, open));
  } else if (screen === 'employees' && current.role === 'admin') {
    show(main, employeesSection(current, open));
  } else if (screen === 'settings' && current.role === 'admin') {
    show(main, companySettingsSection(current));
  } else if (screen === 'passkeys') {
    show(main, passkeysSection(current));
  } else {
    show(
      main,
      h(
        'section',
        { 'aria-labelledby': 'find-title' },
        h('h2', { id: 'find-title', tabindex: '-1' }, 'Find a user'),
        searchSection(current, {
          userType: 2,
          label: 'Phone, email, user id or referral code',
          actions: (user) => [h('button', { type: 'button', onclick: () => open(user.user_id) }, 'Open account')],
        }),
      ),
    );
  }
}

// The session lives in this page's memory: when the page goes (a reload, a closed tab), it ends at the
// API too, with the access token it has (kept fresh, so no refresh is sent first: session-keeper.ts).
window.addEventListener('pagehide', () => {
  if (!staff) return;
  signingOut = true;
  keeper?.leave();
});

void signIn();
