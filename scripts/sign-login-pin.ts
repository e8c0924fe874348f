// A phone's keystore, for trying PIN login with curl (docs/walkthrough.md, "Trusted devices and PIN login"):
//   key                                         makes a P-256 key pair, prints device_public_key
//   sign <company id> <device_key> <timestamp> <nonce>   prints the login_pin signature (base64 DER)
// The private key stays in DEVICE_KEY_FILE (default .data/device-key.pem), never on the command line.
import { createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loginPinText } from '../lib/devices/device-signatures.js';
import { newDeviceKeyPair, signText } from '../tests/harness/device-keys.js';

const file = process.env.DEVICE_KEY_FILE || '.data/device-key.pem';
const [command, companyId = '', deviceKey = '', timestamp = '', nonce = ''] = process.argv.slice(2);
if (command === 'key') {
  const { publicKey, privateKey } = newDeviceKeyPair();
  writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  console.log(publicKey);
} else if (command === 'sign') {
  const privateKey = createPrivateKey(readFileSync(file));
  console.log(signText(privateKey, loginPinText(companyId, deviceKey, Number(timestamp), nonce)));
} else {
  console.error('usage: sign-login-pin.ts key | sign <company id> <device_key> <timestamp> <nonce>');
  process.exit(2);
}
