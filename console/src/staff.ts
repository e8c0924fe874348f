import { createWalletAuthClient, indexedDbKeyStore, memoryStorage, type WalletAuthClient } from '../../client/src/index.js';
import { PageMessage } from './messages.js';

// Who is signed in, and the client they call the API with. The session (access and refresh
// tokens) lives in this page's memory only: a reload, a closed tab or the API's refusal ends it.
// What survives a reload is the company ID (not a secret) and, if the agent asked, this browser's
// device key: a non-extractable WebCrypto key in IndexedDB, which with the login PIN signs in again.

export type Role = 'support' | 'admin';

export interface Staff {
  client: WalletAuthClient;
  companyId: string;
  userId: string;
  name: string;
  role: Role;
  /** The reason last given (a ticket or call number), offered again in the next form. */
  reason: string;
}

const COMPANY_KEY = 'wallet-console:company-id';

/** The company last signed in to on this browser, if any. */
export function rememberedCompany(): string | undefined {
  try {
    return localStorage.getItem(COMPANY_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function rememberCompany(companyId: string): void {
  try {
    localStorage.setItem(COMPANY_KEY, companyId);
  } catch {
    // Storage refused (a private window's policy): the agent types the company ID again next time.
  }
}

/** The API is this page's own origin; the page is at <base>/console. */
export const apiBase = () => `${location.origin}${location.pathname.replace(/\/console\/?$/, '')}`;

export const COMPANY_ID_PATTERN = /^[0-9a-fA-F]{32}$/;

/** A logout may outlive the page that sends it (a reload, a closed tab): the browser still delivers it. */
const logoutOutlivesPage: typeof fetch = (input, init) =>
  fetch(input, { ...init, keepalive: String(input).endsWith('/wallet/v3/auth/logout') });

/**
 * A client of the company: session in memory, device key in IndexedDB; `onSessionEnd` when the API
 * ends the session; its tokens bound to that key while `bindToBrowser` says so (a remembered browser).
 */
export function companyClient(companyId: string, onSessionEnd: () => void, bindToBrowser: () => boolean = () => true): WalletAuthClient {
  return createWalletAuthClient({
    // Tokens bound to the browser's key (DPoP, contract 3.17) where the agent remembers this browser: its key never
    // leaves IndexedDB (non-extractable), so a token copied off this page is refused without it.
    dpop: bindToBrowser,
    baseUrl: apiBase(),
    companyId,
    storage: memoryStorage(),
    deviceKeys: indexedDbKeyStore('wallet-console-device-keys'),
    fetch: logoutOutlivesPage,
    onSessionEnd,
  });
}

/** Who the session's user is: an employee with a back-office role, or a refusal the sign-in screen shows. */
export async function staffOf(client: WalletAuthClient, companyId: string): Promise<Omit<Staff, 'reason'>> {
  const { user } = await client.account.profile();
  if (user.user_type !== 1 || !user.role) {
    throw new PageMessage('This account has no back-office role. An admin of the company gives one under Employees and roles.');
  }
  return { client, companyId, userId: user.user_id, name: `${user.first_name} ${user.last_name}`, role: user.role };
}
