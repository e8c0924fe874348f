// Where the client keeps its session: any get/set/remove of strings, synchronous or not
// (AsyncStorage, expo-secure-store, a Keychain wrapper ...). The default keeps it in memory only.

export interface SessionStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/** Keeps strings in this process only: a reload signs out, which is what a page showing customers' data wants. */
export function memoryStorage(): SessionStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key),
    set: (key, value) => {
      values.set(key, value);
    },
    remove: (key) => {
      values.delete(key);
    },
  };
}

/** A session as the client keeps it. */
export interface Session {
  accessToken: string;
  /** `DPoP` when the tokens are bound to the device key (contract 3.17); absent: `Token`. */
  tokenType?: 'DPoP';
  refreshToken: string;
  /** When the access token expires, epoch milliseconds on this device's clock. */
  expiresAt: number;
  userId: string;
}

/** The session of one company in one storage: read, kept, forgotten. */
export class SessionSlot {
  constructor(
    readonly storage: SessionStorage,
    readonly key: string,
  ) {}

  async read(): Promise<Session | undefined> {
    const text = await this.storage.get(this.key);
    if (!text) return undefined;
    try {
      const session = JSON.parse(text) as Session;
      return typeof session.accessToken === 'string' && typeof session.refreshToken === 'string' ? session : undefined;
    } catch {
      return undefined;
    }
  }

  async keep(session: Session): Promise<void> {
    await this.storage.set(this.key, JSON.stringify(session));
  }

  async forget(): Promise<void> {
    await this.storage.remove(this.key);
  }
}

/** The session an answer carries (registration, OTP login, PIN login, refresh), if it carries one. */
export function sessionIn(data: Record<string, unknown>, now: number): Session | undefined {
  const token = data.token as { token?: unknown; type?: unknown } | undefined;
  const { refresh_token: refreshToken, expires_in: expiresIn, user_id: userId } = data;
  if (typeof token?.token !== 'string' || typeof refreshToken !== 'string') return undefined;
  return {
    accessToken: token.token,
    // Bound to the device key (DPoP, contract 3.17): sent as `DPoP <token>` with a proof on every call.
    ...(token.type === 'DPoP' ? { tokenType: 'DPoP' as const } : {}),
    refreshToken,
    expiresAt: now + (typeof expiresIn === 'number' ? expiresIn : 0) * 1000,
    userId: typeof userId === 'string' ? userId : '',
  };
}
