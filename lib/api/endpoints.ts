import type { Endpoint } from '../http/endpoint.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from '../sessions/discovery.js';
import { adminApprovalsListEndpoint } from './admin-approvals-list-endpoint.js';
import { adminCompanyApproveEndpoint } from './admin-company-approve-endpoint.js';
import { adminCompanyUpdateEndpoint } from './admin-company-update-endpoint.js';
import { adminCompanyViewEndpoint } from './admin-company-view-endpoint.js';
import { adminEmployeeRoleEndpoint } from './admin-employee-role-endpoint.js';
import { adminEmployeesApproveEndpoint } from './admin-employees-approve-endpoint.js';
import { adminEmployeesDevicesApproveEndpoint } from './admin-employees-devices-approve-endpoint.js';
import { adminUsersDevicesRemoveEndpoint } from './admin-users-devices-remove-endpoint.js';
import { adminUsersPasskeysRemoveEndpoint } from './admin-users-passkeys-remove-endpoint.js';
import { adminUsersPhoneApproveEndpoint } from './admin-users-phone-approve-endpoint.js';
import { adminUsersPhoneCancelEndpoint } from './admin-users-phone-cancel-endpoint.js';
import { adminUsersPhoneRecoverEndpoint } from './admin-users-phone-recover-endpoint.js';
import { adminUsersRestoreEndpoint } from './admin-users-restore-endpoint.js';
import { adminUsersSearchEndpoint } from './admin-users-search-endpoint.js';
import { adminUsersSessionsEndEndpoint } from './admin-users-sessions-end-endpoint.js';
import { adminUsersStatusEndpoint } from './admin-users-status-endpoint.js';
import { adminUsersViewEndpoint } from './admin-users-view-endpoint.js';
import { changePinEndpoint } from './change-pin-endpoint.js';
import { devicesApproveEndpoint } from './devices-approve-endpoint.js';
import { devicesEndpoint } from './devices-endpoint.js';
import { devicesRemoveEndpoint } from './devices-remove-endpoint.js';
import { loginPhoneEndpoint } from './login-phone-endpoint.js';
import { loginPinEndpoint } from './login-pin-endpoint.js';
import { logoutEndpoint } from './logout-endpoint.js';
import { notificationsEndpoint } from './notifications-endpoint.js';
import { notificationsReadEndpoint } from './notifications-read-endpoint.js';
import { passkeysEndpoint } from './passkeys-endpoint.js';
import { passkeysLoginEndpoint } from './passkeys-login-endpoint.js';
import { passkeysLoginOptionsEndpoint } from './passkeys-login-options-endpoint.js';
import { passkeysRegisterEndpoint } from './passkeys-register-endpoint.js';
import { passkeysRegisterOptionsEndpoint } from './passkeys-register-options-endpoint.js';
import { passkeysRemoveEndpoint } from './passkeys-remove-endpoint.js';
import { referralProgramEndpoint } from './referral-program-endpoint.js';
import { resetPinEndpoint } from './reset-pin-endpoint.js';
import { stepUpEndpoint } from './step-up-endpoint.js';
import { tokenRefreshEndpoint } from './token-refresh-endpoint.js';
import { transactionAuthorizationEndpoint } from './transaction-authorization-endpoint.js';
import { userChangesCancelEndpoint } from './user-changes-cancel-endpoint.js';
import { userDeleteEndpoint } from './user-delete-endpoint.js';
import { userExportEndpoint } from './user-export-endpoint.js';
import { userPhoneChangeCancelEndpoint } from './user-phone-change-cancel-endpoint.js';
import { userPhoneChangeEndpoint } from './user-phone-change-endpoint.js';
import { userProfileEndpoint } from './user-profile-endpoint.js';
import { userProfileUpdateEndpoint } from './user-profile-update-endpoint.js';
import { userRegisterEndpoint } from './user-register-endpoint.js';
import { userSecurityNotMeEndpoint } from './user-security-not-me-endpoint.js';
import { verifyOtpEndpoint } from './verify-otp-endpoint.js';

// The route table: every operation of the API by its one name, in the order the document lists
// them. The name is the operationId, the function's key in the deploy (serverless/functions.cjs
// builds each function and its route from this table) and in serverless/permissions.cjs, and in
// kebab case its files: functions/login-phone.ts, lib/api/login-phone-endpoint.ts.
// redeemAuthorization has no route at all: the payment service invokes it through the Lambda API
// (functions/redeem-authorization.ts, its payload in lib/authorizations/redeem-authorization-payload.ts).

export const endpoints = {
  userRegister: userRegisterEndpoint,
  loginPhone: loginPhoneEndpoint,
  verifyOtp: verifyOtpEndpoint,
  loginPin: loginPinEndpoint,
  devices: devicesEndpoint,
  devicesRemove: devicesRemoveEndpoint,
  devicesApprove: devicesApproveEndpoint,
  changePin: changePinEndpoint,
  resetPin: resetPinEndpoint,
  stepUp: stepUpEndpoint,
  passkeysRegisterOptions: passkeysRegisterOptionsEndpoint,
  passkeysRegister: passkeysRegisterEndpoint,
  passkeys: passkeysEndpoint,
  passkeysRemove: passkeysRemoveEndpoint,
  passkeysLoginOptions: passkeysLoginOptionsEndpoint,
  passkeysLogin: passkeysLoginEndpoint,
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
  userPhoneChangeCancel: userPhoneChangeCancelEndpoint,
  userChangesCancel: userChangesCancelEndpoint,
  userSecurityNotMe: userSecurityNotMeEndpoint,
  userDelete: userDeleteEndpoint,
  adminEmployeeRole: adminEmployeeRoleEndpoint,
  adminEmployeesApprove: adminEmployeesApproveEndpoint,
  adminEmployeesDevicesApprove: adminEmployeesDevicesApproveEndpoint,
  adminApprovalsList: adminApprovalsListEndpoint,
  adminUsersSearch: adminUsersSearchEndpoint,
  adminUsersPhoneRecover: adminUsersPhoneRecoverEndpoint,
  adminUsersPhoneApprove: adminUsersPhoneApproveEndpoint,
  adminUsersPhoneCancel: adminUsersPhoneCancelEndpoint,
  adminUsersSessionsEnd: adminUsersSessionsEndEndpoint,
  adminUsersStatus: adminUsersStatusEndpoint,
  adminUsersDevicesRemove: adminUsersDevicesRemoveEndpoint,
  adminUsersPasskeysRemove: adminUsersPasskeysRemoveEndpoint,
  adminUsersRestore: adminUsersRestoreEndpoint,
  adminUsersView: adminUsersViewEndpoint,
  adminCompanyView: adminCompanyViewEndpoint,
  adminCompanyUpdate: adminCompanyUpdateEndpoint,
  adminCompanyApprove: adminCompanyApproveEndpoint,
} as const satisfies Record<string, Endpoint>;

export type OperationName = keyof typeof endpoints;

/** A function behind HTTP that is not an operation of the API: its routes, memory and purpose. */
export interface PageFunction {
  /** Each route as API Gateway's route key ("GET /path"), or "*": every route no other function has. */
  routes: string[] | '*';
  description: string;
  /** MB, 512 unless set. */
  memorySize?: number;
  /** Served by npm start and the tests only: a deployed stage has no such function. */
  localOnly?: true;
}

/**
 * The other functions behind HTTP, by the same one name (functions/<kebab>.ts): the issuer's public
 * documents (API contract 3.12), the staff's console (3.14), the interactive reference, and the one
 * that answers any other route.
 */
export const pages = {
  wellKnown: {
    routes: [`GET ${OPENID_CONFIGURATION_PATH}`, `GET ${JWKS_PATH}`],
    description: "The issuer's discovery document and its keys (API contract 3.12): public, cacheable",
    memorySize: 256,
  },
  console: {
    routes: ['GET /console', 'GET /console/{asset}'],
    description: "The company staff's page (API contract 3.14): sign in, find a user, act, keep the company's settings",
    memorySize: 256,
  },
  apiDocs: {
    routes: ['GET /docs', 'GET /docs/{asset}'],
    description: 'The interactive API reference of docs/openapi.json',
    localOnly: true,
  },
  notFound: { routes: '*', description: 'Every unknown route, answered 404 in the envelope', memorySize: 256 },
} as const satisfies Record<string, PageFunction>;

/** What the in-process service, the fuzz and the bench call: each operation, and the one that answers any other route. */
export type FunctionName = OperationName | 'notFound';

/** The functions other services invoke through the Lambda API, with no HTTP route. */
export type InvokedFunctionName = 'redeemAuthorization';
