import { base64 } from './random.js';

// The key a device proves itself with (API contract 3.6): P-256, made where it cannot be read back.
// By default a WebCrypto key pair whose private half is not extractable, kept in IndexedDB in a
// browser (a CryptoKey survives there as an object, never as bytes) and in memory elsewhere.
// React Native and Node apps plug in a store of their own, such as one backed by the Secure
// Enclave or Android Keystore, that signs with a key it never hands out.

/** A device key as the client uses it: its public half to bind, and a signature over some bytes. */
export interface DeviceKey {
  /** Base64 of the public key's SPKI DER encoding: the `device_public_key` of registration and OTP login. */
  publicKey: string;
  /** ECDSA P-256 with SHA-256 over the bytes: raw r||s (64 bytes) or DER. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

export interface DeviceKeyStore {
  /** The key kept under this name, if any. */
  load(name: string): Promise<DeviceKey | undefined>;
  /** Makes a new key under this name, replacing any kept there. */
  create(name: string): Promise<DeviceKey>;
  remove(name: string): Promise<void>;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

async function deviceKeyOf(pair: CryptoKeyPair): Promise<DeviceKey> {
  const publicKey = base64(await crypto.subtle.exportKey('spki', pair.publicKey));
  return {
    publicKey,
    sign: async (data) =>
      new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, data as BufferSource)),
  };
}

/** A non-extractable P-256 pair: its private key can sign, and never be exported. */
function newKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

/** WebCrypto keys kept in this process only (Node services, tests, an app that binds each launch). */
export function memoryKeyStore(): DeviceKeyStore {
  const pairs = new Map<string, CryptoKeyPair>();
  return {
    load: async (name) => {
      const pair = pairs.get(name);
      return pair && deviceKeyOf(pair);
    },
    create: async (name) => {
      const pair = await newKeyPair();
      pairs.set(name, pair);
      return deviceKeyOf(pair);
    },
    remove: async (name) => {
      pairs.delete(name);
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
  return {
    load: async (name) => {
      const pair = (await withStore('readonly', (store) => store.get(name))) as CryptoKeyPair | undefined;
      return pair && deviceKeyOf(pair);
    },
    create: async (name) => {
      const pair = await newKeyPair();
      await withStore('readwrite', (store) => store.put(pair, name));
      return deviceKeyOf(pair);
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

/** The text a PIN login signs (API contract 3.6), exactly. */
export function pinLoginText(companyId: string, deviceKey: string, timestamp: number, nonce: string): string {
  return `login_pin\n${companyId.toLowerCase()}\n${deviceKey}\n${timestamp}\n${nonce}`;
}
