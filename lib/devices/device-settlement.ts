import type { Config } from '../config.js';
import type { Probation } from '../store/device-store.js';
import { UserType } from '../users/user-types.js';

// Settled devices and devices on probation (API contract 3.15). A device bound at registration (or
// by the operator's command) is settled at once; one bound at an OTP login, which a SIM swapper
// passes, is on probation for CREDENTIAL_PROBATION_HOURS: its PIN logins are SMS-strength. It then
// settles by time only if the owner did not log in strongly meanwhile (second reading: the owner is
// present, so a newcomer waits for the owner's devices/approve). An employee's device settles only by
// another admin's approval or the operator's command: time never settles it. Devices bound before
// round 6 carry no probation: settled.

/** When a device's probation ends by time, epoch seconds (undefined: settled, or never by time). */
export function probationEndsAt(config: Pick<Config, 'credentialProbationHours'>, device: Probation): number | undefined {
  return device.probation_since === undefined ? undefined : device.probation_since + config.credentialProbationHours * 3600;
}

/** Whether a device is settled at `now`. */
export function isSettled(config: Pick<Config, 'credentialProbationHours'>, device: Probation, userType: number, now: number): boolean {
  if (device.probation_since === undefined) return true;
  if (device.probation_held !== undefined || userType === UserType.EMPLOYEE) return false;
  return now >= (probationEndsAt(config, device) ?? 0);
}

/** Whether a device is on probation and still inside its window (a strong login of the owner now holds it there). */
export function inProbationWindow(
  config: Pick<Config, 'credentialProbationHours'>,
  device: Probation,
  userType: number,
  now: number,
): boolean {
  return (
    !isSettled(config, device, userType, now) && device.probation_held === undefined && now < (probationEndsAt(config, device) ?? Infinity)
  );
}
