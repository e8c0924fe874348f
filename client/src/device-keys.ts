/// <reference lib="dom" />
import { base64 } from './random.js';

// The key a device proves itself with (API contract 3.6): P-256, made where it cannot be read back.
// By default a WebCrypto key pair whose private half is not extractable, kept in IndexedDB in a
// browser (a CryptoKey survives there as an object, never as bytes) and in memory elsewhere.
// React Native and Node apps plug in a store of their own, such as one backed by the Secure
// Enclave or Android Keystore, that signs with a key it never hands out.

/** A device key as the client uses it: its public half to bind, a signature over some bytes, and its binding. */
export interface DeviceKey {
  /** Base64 of the public key's SPKI DER encoding: the `device_public_key` of registration and OTP login. */
  publicKey: string;
  /** ECDSA P-256 with SHA-256 over the bytes: raw r||s (64 bytes) or DER. */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** The service's handle of the binding (`device_key`), once a login bound it. */
  deviceKey?: string;
  /**
   * The same key for DPoP proofs (contract 3.17): the non-extractable private CryptoKey jose signs
   * with, and the public JWK a proof carries. Absent from a store that cannot give them (a native
   * keystore signs through `sign` only): the client then sends no proofs.
   */
  dpop?: { privateKey: CryptoKey; publicJwk: JsonWebKey };
}

/** Keeps keys and their bindings across launches (the session itself may be kept in memory only). */
export interface DeviceKeyStore {
  /** The key kept under this name, if any. */
  load(name: string): Promise<DeviceKey | undefined>;
  /** Makes a new key under this name, replacing any kept there. */
  create(name: string): Promise<DeviceKey>;
  /** Keeps the service's handle of the key's binding. */
  bind(name: string, deviceKey: string): Promise<void>;
  remove(name: string): Promise<void>;
}

/** What the WebCrypto stores keep per name. */
interface KeptKey {
  pair: CryptoKeyPair;
  deviceKey?: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

async function deviceKeyOf({ pair, deviceKey }: KeptKey): Promise<DeviceKey> {
  const publicKey = base64(await crypto.subtle.exportKey('spki', pair.publicKey));
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return {
    publicKey,
    dpop: { privateKey: pair.privateKey, publicJwk: { kty, crv, x, y } },
    sign: async (data) =>
      new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, data as BufferSource)),
    ...(deviceKey ? { deviceKey } : {}),
  };
}

/** A non-extractable P-256 pair: its private key can sign, and never be exported. */
function newKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

/** WebCrypto keys kept in this process only (Node services, tests, an app that binds each launch). */
export function memoryKeyStore(): DeviceKeyStore {
  const kept = new Map<string, KeptKey>();
  return {
    load: async (name) => {
      const key = kept.get(name);
      return key && deviceKeyOf(key);
    },
    create: async (name) => {
      const key = { pair: await newKeyPair() };
      kept.set(name, key);
      return deviceKeyOf(key);
    },
    bind: async (name, deviceKey) => {
      const key = kept.get(name);
      if (key) kept.set(name, { ...key, deviceKey });
    },
    remove: async (name) => {
      kept.delete(name);
    },
  };
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** WebCrypto keys kept in the browser's IndexedDB as CryptoKey objects: the private key stays non-extractable across reloads. */
export function indexedDbKeyStore(database = 'wallet-auth-device-keys'): DeviceKeyStore {
  const STORE = 'keys';
  const open = async () => {
    const opening = indexedDB.open(database, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    return done(opening);
  };
  const withStore = async <T>(mode: IDBTransactionMode, use: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const db = await open();
    try {
      return await done(use(db.transaction(STORE, mode).objectStore(STORE)));
    } finally {
      db.close();
    }
  };
  const read = async (name: string) => (await withStore('readonly', (store) => store.get(name))) as KeptKey | undefined;
  return {
    load: async (name) => {
      const key = await read(name);
      return key && deviceKeyOf(key);
    },
    create: async (name) => {
      const key = { pair: await newKeyPair() };
      await withStore('readwrite', (store) => store.put(key, name));
      return deviceKeyOf(key);
    },
    bind: async (name, deviceKey) => {
      const key = await read(name);
      if (key) await withStore('readwrite', (store) => store.put({ ...key, deviceKey }, name));
    },
    remove: async (name) => {
      await withStore('readwrite', (store) => store.delete(name));
    },
  };
}

/** IndexedDB where there is one (browsers), memory elsewhere. */
export function defaultKeyStore(): DeviceKeyStore {
  return typeof indexedDB === 'undefined' ? memoryKeyStore() : indexedDbKeyStore();
}

/** The text a PIN login (API contract 3.6) or a step-up (3.15) signs, exactly. */
export function pinLoginText(
  companyId: string,
  deviceKey: string,
  timestamp: number,
  nonce: string,
  purpose: 'login_pin' | 'step_up' = 'login_pin',
): string {
  return `${purpose}\n${companyId.toLowerCase()}\n${deviceKey}\n${timestamp}\n${nonce}`;
}
