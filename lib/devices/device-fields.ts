import * as z from 'zod/mini';
import { hexIdField } from '../ids.js';
import { p256PublicKey } from './device-signatures.js';

// The request fields of a device binding (API contract 3.6), shared by user_register and verify_otp.

/** Longest base64 SPKI DER a client may send: a P-256 key is 91 bytes (124 characters); room for other encodings. */
const MAX_PUBLIC_KEY_CHARACTERS = 1024;

/** Built with the schema that holds it, on first use. */
export const devicePublicKeyField = () =>
  z.optional(
    z.string().check(
      z.maxLength(MAX_PUBLIC_KEY_CHARACTERS),
      z.refine((value: string) => p256PublicKey(value) !== undefined, 'must be a P-256 public key, base64 of its SPKI DER encoding'),
      z.meta({
        description:
          'Binds this device: a P-256 public key from the platform keystore, base64 of its SPKI DER encoding. The answer then holds device_key.',
      }),
    ),
  );

/** The seed's device labels: what the device list shows, never proof. */
export const deviceLabelFields = () => ({
  device_type: z.optional(z.int().check(z.gte(0), z.lte(1000))),
  device_id: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
  device_unique_id: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
});

/** The fields of a request that may bind a device: the public key and its labels. */
export const deviceBindingFields = () => ({ device_public_key: devicePublicKeyField(), ...deviceLabelFields() });

/** A device_key as a client sends it back: 32 hex, kept lower-case. */
export const deviceKeyField = () => hexIdField('device_key').check(z.meta({ description: 'The device_key a binding answered (32 hex)' }));
