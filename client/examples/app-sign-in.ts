import { createWalletAuthClient, WalletAuthError } from '@wallet-auth/client';

/** Signs a customer in by a texted code, binds this device, and later signs in with the PIN alone. */
export async function signInThenUsePin(baseUrl: string, companyId: string, phone: string, readCode: () => Promise<string>, pin: string) {
  const client = createWalletAuthClient({ baseUrl, companyId });
  const who = { dial_code: '+1', phone_number: phone, user_type: 2 as const };

  await client.auth.sendCode({ ...who, otp_type: 1 });
  await client.auth.verifyCode({ ...who, otp_type: 1, otp: await readCode() }, { bindDevice: true });
  const { user } = await client.account.profile();

  // Next launch: no SMS, the PIN and this device's key.
  await client.auth.logout();
  try {
    await client.auth.loginWithPin(pin);
  } catch (error) {
    if (error instanceof WalletAuthError && error.name === 'PIN_LOCKED') return { user, locked: true };
    throw error;
  }
  return { user, locked: false, devices: (await client.devices.list()).devices.length };
}
