import { type DeviceKey, type DeviceKeyStore, defaultKeyStore, pinLoginText } from './device-keys.js';
import { dpopProof } from './dpop.js';
import { OPERATION_ROUTES } from './generated/api-facts.js';
import { callOperation, type OperationData, type OperationHelpers, type OperationInput, operationHelpers } from './operations.js';
import type { PasskeyPlatform } from './passkeys.js';
import { base64, randomNonce } from './random.js';
import { memoryStorage, SessionSlot, type SessionStorage } from './session-storage.js';
import { createTransport, type RequestOptions, type Transport } from './transport.js';

export interface WalletAuthClientOptions {
  /** The service's base URL, such as https://auth.example.com. */
  baseUrl: string;
  /** The company (32 hexadecimal characters): every call's CompanyID. */
  companyId: string;
  /** Where the session is kept (default: in memory). */
  storage?: SessionStorage;
  /** The fetch to call with (default: the global one). */
  fetch?: typeof fetch;
  /** Where device keys are made and kept (default: IndexedDB in a browser, memory elsewhere). */
  deviceKeys?: DeviceKeyStore;
  /**
   * Whether every call carries a DPoP proof by the device key, so the session's tokens are bound
   * to it and worthless without it (contract 3.17). Default true. A function is asked at each call
   * (a page that binds only when the user chose "Remember this browser"); a bound session's calls
   * always carry proofs.
   */
  dpop?: boolean | (() => boolean);
  /** Told when the service ends the session (a refusal no refresh cures) or a logout ends it. */
  onSessionEnd?: () => void;
}

/** Binds this device's key in a request that proves the user (registration, OTP login). */
export interface BindDevice {
  bindDevice?: boolean;
}

type Register = OperationInput<'userRegister'>;
type VerifyCode = OperationInput<'verifyOtp'>;
type SendCode = OperationInput<'loginPhone'>;

export interface AuthHelpers {
  /** Registers a user (user_type 1 sends this client's employee token); `bindDevice` binds this device's key. */
  register(input: Register, options?: RequestOptions & BindDevice): Promise<OperationData<'userRegister'>>;
  /** Sends a code by SMS (otp_type 3 and 4 send the session's token). */
  sendCode(input: SendCode, options?: RequestOptions): Promise<OperationData<'loginPhone'>>;
  /** Verifies a code; an OTP login (otp_type 1) keeps its session, and binds this device's key with `bindDevice`. */
  verifyCode(input: VerifyCode, options?: RequestOptions & BindDevice): Promise<OperationData<'verifyOtp'>>;
  /** Logs in with the login PIN and this device's bound key, signing the text of contract 3.6. */
  loginWithPin(loginPin: string, options?: RequestOptions): Promise<OperationData<'loginPin'>>;
  /** Makes this session strong again (contract 3.15) with the login PIN and this device's key; keeps the new access token. */
  stepUp(loginPin: string, options?: RequestOptions): Promise<OperationData<'stepUp'>>;
  /**
   * Adds a passkey (contract 3.16) from a fresh strong session: the creation ceremony on the platform.
   * `details` is its name, or its name and an employee's `reason` (required of an employee: the staff record).
   */
  registerPasskey(
    platform: PasskeyPlatform,
    details?: string | { name?: string; reason?: string },
    options?: RequestOptions,
  ): Promise<OperationData<'passkeysRegister'>>;
  /** Logs in with a passkey: discoverable, or for a typed phone; keeps the strong session it answers. */
  loginWithPasskey(
    platform: PasskeyPlatform,
    phone?: { dial_code: string; phone_number: string; user_type?: 1 | 2 },
    options?: RequestOptions,
  ): Promise<OperationData<'passkeysLogin'>>;
  /** Makes this session strong-fresh again with a passkey of its user; keeps the new access token. */
  stepUpWithPasskey(platform: PasskeyPlatform, options?: RequestOptions): Promise<OperationData<'stepUp'>>;
  /** Logs out (scope `current` by default) and forgets the session. */
  logout(input?: OperationInput<'logout'>, options?: RequestOptions): Promise<OperationData<'logout'>>;
  /**
   * A logout made ready now and sent at once when the answer is called: for a page to call as it goes
   * (pagehide), where nothing may be awaited first (a bound session's proof is signed here, not then).
   * Good for 60 s (DPOP_PROOF_MAX_AGE_SECONDS): make it again before. Undefined without a session.
   */
  prepareLogout(input?: OperationInput<'logout'>): Promise<(() => void) | undefined>;
  /** Refreshes the tokens now, shared with any refresh under way. */
  refreshTokens(): Promise<void>;
  /** Whether this client holds a session. */
  signedIn(): Promise<boolean>;
  /** The session's user, while there is a session. */
  userId(): Promise<string | undefined>;
  /**
   * A live access token (refreshed first when it is about to expire, or has less than `validForMs`
   * left), to call the wallet's other services with; a page also keeps its session fresh with it,
   * so that a request sent as the page goes (a keepalive logout) never needs a refresh first.
   */
  accessToken(options?: { validForMs?: number }): Promise<string | undefined>;
  /**
   * The headers of a call to another service of the wallet at `url`: `Authorization` with the live
   * access token and, for a token bound to this device's key, `DPoP` with a proof for that method
   * and URL (contract 3.17; the service checks it with createTokenVerifier().verifyRequest). Empty without a session.
   */
  authorizationFor(method: string, url: string): Promise<Record<string, string>>;
  /** Whether this device has a key bound for this company, so that a PIN login can be tried. */
  hasBoundDevice(): Promise<boolean>;
  /** Forgets this device's key and binding (the service's binding stays until removed there). */
  forgetDevice(): Promise<void>;
}

export type WalletAuthClient = OperationHelpers & {
  /** Calls any route: answers the envelope's `data`, or throws a WalletAuthError. */
  request: Transport['request'];
  auth: AuthHelpers;
};

export function createWalletAuthClient(options: WalletAuthClientOptions): WalletAuthClient {
  const companyId = options.companyId.toLowerCase();
  const storage = options.storage ?? memoryStorage();
  const session = new SessionSlot(storage, `wallet-auth:${companyId}:session`);
  const deviceKeys = options.deviceKeys ?? defaultKeyStore();
  const keyName = `wallet-auth:${companyId}`;
  const wantsDpop = typeof options.dpop === 'function' ? options.dpop : () => options.dpop !== false;
  const transport = createTransport({
    baseUrl: options.baseUrl,
    companyId,
    session,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    onSessionEnd: options.onSessionEnd,
    // Every call proves the device key (DPoP, contract 3.17), unless the app turns it off; a bound session's always.
    dpopKey: async (sessionIsBound) => (sessionIsBound || wantsDpop() ? (await deviceKey()).dpop : undefined),
  });
  const helpers = operationHelpers(transport);

  /**
   * The key kept, else a new one, loaded once and then held in memory for this client's life: calls
   * at once share one load, so they never make two keys, and a session bound to the key (DPoP) keeps
   * proving it even when the browser's storage is cleared meanwhile (another tab, "clear site data"):
   * a new key would only end that session. Cleared by forgetDevice.
   */
  let keyLoading: Promise<DeviceKey> | undefined;
  const deviceKey = (): Promise<DeviceKey> => {
    keyLoading ??= (async () => (await deviceKeys.load(keyName)) ?? deviceKeys.create(keyName))();
    keyLoading.catch(() => {
      keyLoading = undefined;
    });
    return keyLoading;
  };

  /** Adds this device's public key to a request that proves the user, and keeps the binding it answers. */
  async function withBinding<Data>(
    bindDevice: boolean | undefined,
    input: Record<string, unknown>,
    send: (input: never) => Promise<Data>,
  ): Promise<Data> {
    if (!bindDevice) return send(input as never);
    const key = await deviceKey();
    const data = await send({ ...input, device_public_key: key.publicKey } as never);
    const bound = (data as { device_key?: unknown }).device_key;
    if (typeof bound === 'string') await deviceKeys.bind(keyName, bound);
    return data;
  }

  /** The PIN with this device's signature of the text of contract 3.6 (a login) or 3.15 (a step-up). */
  async function signedPin(purpose: 'login_pin' | 'step_up', loginPin: string) {
    const key = await deviceKeys.load(keyName);
    const bound = key?.deviceKey;
    if (!key || !bound) throw new Error('this device has no bound key: verify a code or register with bindDevice first');
    const timestamp = Math.floor((Date.now() + transport.clockOffsetMs()) / 1000);
    const nonce = randomNonce();
    const signature = await key.sign(new TextEncoder().encode(pinLoginText(companyId, bound, timestamp, nonce, purpose)));
    return { device_key: bound, login_pin: loginPin, timestamp, nonce, signature: base64(signature) };
  }

  const auth: AuthHelpers = {
    register: (input, { bindDevice, ...requestOptions } = {}) =>
      withBinding(bindDevice, input, (body) =>
        callOperation(transport, 'userRegister', body, { auth: input.user_type === 1, ...requestOptions }),
      ),
    sendCode: (input, requestOptions = {}) =>
      callOperation(transport, 'loginPhone', input, { auth: input.otp_type === 3 || input.otp_type === 4, ...requestOptions }),
    verifyCode: (input, { bindDevice, ...requestOptions } = {}) =>
      withBinding(bindDevice && input.otp_type === 1, input, (body) =>
        callOperation(transport, 'verifyOtp', body, { auth: input.otp_type === 3 || input.otp_type === 4, ...requestOptions }),
      ),
    loginWithPin: async (loginPin, requestOptions) =>
      callOperation(transport, 'loginPin', await signedPin('login_pin', loginPin), requestOptions),
    async stepUp(loginPin, requestOptions) {
      const data = await callOperation(transport, 'stepUp', await signedPin('step_up', loginPin), requestOptions);
      const kept = await session.read();
      if (kept) await session.keep({ ...kept, accessToken: data.token.token, expiresAt: Date.now() + data.expires_in * 1000 });
      return data;
    },
    async registerPasskey(platform, details, requestOptions) {
      const { name, reason } = typeof details === 'string' ? { name: details, reason: undefined } : (details ?? {});
      const { options } = await callOperation(transport, 'passkeysRegisterOptions', {}, requestOptions);
      const created = await platform.create(options);
      const body = { ...created, ...(name ? { name } : {}), ...(reason ? { reason } : {}) };
      return callOperation(transport, 'passkeysRegister', body as never, requestOptions);
    },
    async loginWithPasskey(platform, phone, requestOptions) {
      const { options } = await callOperation(transport, 'passkeysLoginOptions', phone ?? {}, requestOptions);
      return callOperation(transport, 'passkeysLogin', (await platform.get(options)) as never, requestOptions);
    },
    async stepUpWithPasskey(platform, requestOptions) {
      const { options } = await callOperation(transport, 'passkeysLoginOptions', {}, { ...requestOptions, auth: false });
      const data = await callOperation(transport, 'stepUp', { passkey: await platform.get(options) } as never, requestOptions);
      const kept = await session.read();
      if (kept) await session.keep({ ...kept, accessToken: data.token.token, expiresAt: Date.now() + data.expires_in * 1000 });
      return data;
    },
    logout: (input, requestOptions) => callOperation(transport, 'logout', input, requestOptions),
    prepareLogout: (input) => transport.prepare(OPERATION_ROUTES.logout[1], input ?? {}),
    refreshTokens: async () => {
      await transport.refresh();
    },
    signedIn: async () => (await session.read()) !== undefined,
    userId: async () => (await session.read())?.userId,
    accessToken: async (options) => (await transport.liveSession(options?.validForMs))?.accessToken,
    authorizationFor: async (method, url): Promise<Record<string, string>> => {
      const live = await transport.liveSession();
      if (!live) return {};
      const key = live.tokenType === 'DPoP' ? (await deviceKey()).dpop : undefined;
      if (!key) return { Authorization: `Bearer ${live.accessToken}` };
      const nowSeconds = (Date.now() + transport.clockOffsetMs()) / 1000;
      const proof = await dpopProof(key, { method: method.toUpperCase(), url, accessToken: live.accessToken, nowSeconds });
      return { Authorization: `DPoP ${live.accessToken}`, DPoP: proof };
    },
    hasBoundDevice: async () => Boolean((await deviceKeys.load(keyName))?.deviceKey),
    forgetDevice: async () => {
      keyLoading = undefined;
      await deviceKeys.remove(keyName);
    },
  };

  return { ...helpers, request: transport.request, auth };
}
