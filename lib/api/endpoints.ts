import type { Endpoint } from './endpoint.js';
import { loginPhoneEndpoint } from './login-phone-endpoint.js';
import { logoutEndpoint } from './logout-endpoint.js';
import { referralProgramEndpoint } from './referral-program-endpoint.js';
import { userRegisterEndpoint } from './user-register-endpoint.js';
import { verifyOtpEndpoint } from './verify-otp-endpoint.js';

/** Every operation of the API, in the order the document lists them. */
export const endpoints: readonly Endpoint[] = [
  userRegisterEndpoint,
  loginPhoneEndpoint,
  verifyOtpEndpoint,
  logoutEndpoint,
  referralProgramEndpoint,
];
