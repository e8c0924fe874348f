import type { Endpoint } from '../http/endpoint.js';
import { changePinEndpoint } from './change-pin-endpoint.js';
import { devicesEndpoint } from './devices-endpoint.js';
import { devicesRemoveEndpoint } from './devices-remove-endpoint.js';
import { loginPhoneEndpoint } from './login-phone-endpoint.js';
import { loginPinEndpoint } from './login-pin-endpoint.js';
import { logoutEndpoint } from './logout-endpoint.js';
import { notificationsEndpoint } from './notifications-endpoint.js';
import { notificationsReadEndpoint } from './notifications-read-endpoint.js';
import { referralProgramEndpoint } from './referral-program-endpoint.js';
import { resetPinEndpoint } from './reset-pin-endpoint.js';
import { tokenRefreshEndpoint } from './token-refresh-endpoint.js';
import { transactionAuthorizationEndpoint } from './transaction-authorization-endpoint.js';
import { userDeleteEndpoint } from './user-delete-endpoint.js';
import { userExportEndpoint } from './user-export-endpoint.js';
import { userPhoneChangeEndpoint } from './user-phone-change-endpoint.js';
import { userProfileEndpoint } from './user-profile-endpoint.js';
import { userProfileUpdateEndpoint } from './user-profile-update-endpoint.js';
import { userRegisterEndpoint } from './user-register-endpoint.js';
import { verifyOtpEndpoint } from './verify-otp-endpoint.js';

// The route table: every operation of the API by its one name, in the order the document lists
// them. The name is the operationId, the function's key in serverless.yml and serverless/
// permissions.cjs, and in kebab case its files: functions/login-phone.ts, lib/api/login-phone-endpoint.ts.
//
//   userRegister              POST /wallet/v3/auth/user_register                 lib/registration
//   loginPhone                POST /wallet/v3/auth/login_phone                   lib/otp
//   verifyOtp                 POST /wallet/v3/auth/verify_otp                    lib/otp
//   loginPin                  POST /wallet/v3/auth/login_pin                     lib/pins
//   devices                   GET  /wallet/v3/auth/devices                       lib/devices
//   devicesRemove             POST /wallet/v3/auth/devices/remove                lib/devices
//   changePin                 POST /wallet/v3/auth/change_pin                    lib/pins
//   resetPin                  POST /wallet/v3/auth/reset_pin                     lib/pins
//   tokenRefresh              POST /wallet/v3/auth/token/refresh                 lib/sessions
//   logout                    POST /wallet/v3/auth/logout                        lib/sessions
//   referralProgram           GET  /wallet/v3/reward_promotion/referral_program  lib/referrals
//   notifications             GET  /wallet/v3/notifications                      lib/notifications
//   notificationsRead         POST /wallet/v3/notifications/read                 lib/notifications
//   transactionAuthorization  POST /wallet/v3/auth/transaction_authorization     lib/authorizations
//   userProfile               GET  /wallet/v3/user/profile                       lib/account
//   userProfileUpdate         POST /wallet/v3/user/profile/update                lib/account
//   userExport                GET  /wallet/v3/user/export                        lib/account
//   userPhoneChange           POST /wallet/v3/user/phone/change                  lib/account
//   userDelete                POST /wallet/v3/user/delete                        lib/account
//
// Any other route is notFound (functions/not-found.ts), which has no endpoint of its own.
// redeemAuthorization has no route at all: the payment service invokes it through the Lambda API
// (functions/redeem-authorization.ts, its payload in lib/authorizations/redeem-authorization-payload.ts).

export const endpoints = {
  userRegister: userRegisterEndpoint,
  loginPhone: loginPhoneEndpoint,
  verifyOtp: verifyOtpEndpoint,
  loginPin: loginPinEndpoint,
  devices: devicesEndpoint,
  devicesRemove: devicesRemoveEndpoint,
  changePin: changePinEndpoint,
  resetPin: resetPinEndpoint,
  tokenRefresh: tokenRefreshEndpoint,
  logout: logoutEndpoint,
  referralProgram: referralProgramEndpoint,
  notifications: notificationsEndpoint,
  notificationsRead: notificationsReadEndpoint,
  transactionAuthorization: transactionAuthorizationEndpoint,
  userProfile: userProfileEndpoint,
  userProfileUpdate: userProfileUpdateEndpoint,
  userExport: userExportEndpoint,
  userPhoneChange: userPhoneChangeEndpoint,
  userDelete: userDeleteEndpoint,
} as const satisfies Record<string, Endpoint>;

export type OperationName = keyof typeof endpoints;

/** Every function behind HTTP: each operation, and the one that answers any other route. */
export type FunctionName = OperationName | 'notFound';

/** The functions other services invoke through the Lambda API, with no HTTP route. */
export type InvokedFunctionName = 'redeemAuthorization';
