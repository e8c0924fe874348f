// Generated from the service's route table and error table by npm run openapi: do not edit.
export const OPERATION_ROUTES = {
  "userRegister": [
    "POST",
    "/wallet/v3/auth/user_register",
    "optional"
  ],
  "loginPhone": [
    "POST",
    "/wallet/v3/auth/login_phone",
    "optional"
  ],
  "verifyOtp": [
    "POST",
    "/wallet/v3/auth/verify_otp",
    "optional"
  ],
  "loginPin": [
    "POST",
    "/wallet/v3/auth/login_pin",
    "none"
  ],
  "devices": [
    "GET",
    "/wallet/v3/auth/devices",
    "required"
  ],
  "devicesRemove": [
    "POST",
    "/wallet/v3/auth/devices/remove",
    "required"
  ],
  "devicesApprove": [
    "POST",
    "/wallet/v3/auth/devices/approve",
    "required"
  ],
  "changePin": [
    "POST",
    "/wallet/v3/auth/change_pin",
    "required"
  ],
  "resetPin": [
    "POST",
    "/wallet/v3/auth/reset_pin",
    "required"
  ],
  "stepUp": [
    "POST",
    "/wallet/v3/auth/step_up",
    "required"
  ],
  "passkeysRegisterOptions": [
    "POST",
    "/wallet/v3/auth/passkeys/register/options",
    "required"
  ],
  "passkeysRegister": [
    "POST",
    "/wallet/v3/auth/passkeys/register",
    "required"
  ],
  "passkeys": [
    "GET",
    "/wallet/v3/auth/passkeys",
    "required"
  ],
  "passkeysRemove": [
    "POST",
    "/wallet/v3/auth/passkeys/remove",
    "required"
  ],
  "passkeysLoginOptions": [
    "POST",
    "/wallet/v3/auth/passkeys/login/options",
    "none"
  ],
  "passkeysLogin": [
    "POST",
    "/wallet/v3/auth/passkeys/login",
    "none"
  ],
  "tokenRefresh": [
    "POST",
    "/wallet/v3/auth/token/refresh",
    "none"
  ],
  "logout": [
    "POST",
    "/wallet/v3/auth/logout",
    "required"
  ],
  "referralProgram": [
    "GET",
    "/wallet/v3/reward_promotion/referral_program",
    "required"
  ],
  "notifications": [
    "GET",
    "/wallet/v3/notifications",
    "required"
  ],
  "notificationsRead": [
    "POST",
    "/wallet/v3/notifications/read",
    "required"
  ],
  "transactionAuthorization": [
    "POST",
    "/wallet/v3/auth/transaction_authorization",
    "required"
  ],
  "userProfile": [
    "GET",
    "/wallet/v3/user/profile",
    "required"
  ],
  "userProfileUpdate": [
    "POST",
    "/wallet/v3/user/profile/update",
    "required"
  ],
  "userExport": [
    "GET",
    "/wallet/v3/user/export",
    "required"
  ],
  "userPhoneChange": [
    "POST",
    "/wallet/v3/user/phone/change",
    "required"
  ],
  "userPhoneChangeCancel": [
    "POST",
    "/wallet/v3/user/phone/change/cancel",
    "required"
  ],
  "userChangesCancel": [
    "POST",
    "/wallet/v3/user/changes/cancel",
    "required"
  ],
  "userSecurityNotMe": [
    "POST",
    "/wallet/v3/user/security/not_me",
    "required"
  ],
  "userDelete": [
    "POST",
    "/wallet/v3/user/delete",
    "required"
  ],
  "adminEmployeeRole": [
    "POST",
    "/wallet/v3/admin/employees/role",
    "required"
  ],
  "adminEmployeesApprove": [
    "POST",
    "/wallet/v3/admin/employees/approve",
    "required"
  ],
  "adminEmployeesDevicesApprove": [
    "POST",
    "/wallet/v3/admin/employees/devices/approve",
    "required"
  ],
  "adminApprovalsList": [
    "POST",
    "/wallet/v3/admin/approvals/list",
    "required"
  ],
  "adminUsersSearch": [
    "POST",
    "/wallet/v3/admin/users/search",
    "required"
  ],
  "adminUsersPhoneRecover": [
    "POST",
    "/wallet/v3/admin/users/phone/recover",
    "required"
  ],
  "adminUsersPhoneApprove": [
    "POST",
    "/wallet/v3/admin/users/phone/approve",
    "required"
  ],
  "adminUsersPhoneCancel": [
    "POST",
    "/wallet/v3/admin/users/phone/cancel",
    "required"
  ],
  "adminUsersSessionsEnd": [
    "POST",
    "/wallet/v3/admin/users/sessions/end",
    "required"
  ],
  "adminUsersStatus": [
    "POST",
    "/wallet/v3/admin/users/status",
    "required"
  ],
  "adminUsersDevicesRemove": [
    "POST",
    "/wallet/v3/admin/users/devices/remove",
    "required"
  ],
  "adminUsersPasskeysRemove": [
    "POST",
    "/wallet/v3/admin/users/passkeys/remove",
    "required"
  ],
  "adminUsersRestore": [
    "POST",
    "/wallet/v3/admin/users/restore",
    "required"
  ],
  "adminUsersView": [
    "POST",
    "/wallet/v3/admin/users/view",
    "required"
  ],
  "adminCompanyView": [
    "POST",
    "/wallet/v3/admin/company/view",
    "required"
  ],
  "adminCompanyUpdate": [
    "POST",
    "/wallet/v3/admin/company/update",
    "required"
  ],
  "adminCompanyApprove": [
    "POST",
    "/wallet/v3/admin/company/approve",
    "required"
  ]
} as const;

export const ERROR_NAMES: Record<number, string> = {
  "1": "BAD_REQUEST",
  "2": "COMPANY_ID_INVALID",
  "3": "COMPANY_NOT_FOUND",
  "4": "UNAUTHORIZED",
  "5": "FORBIDDEN",
  "6": "NOT_FOUND",
  "7": "ALREADY_REGISTERED",
  "8": "INVALID_REFERRAL_CODE",
  "9": "OTP_INVALID",
  "10": "OTP_EXPIRED",
  "11": "OTP_ATTEMPTS_EXCEEDED",
  "12": "TOO_MANY_REQUESTS",
  "13": "PAYLOAD_TOO_LARGE",
  "14": "PHONE_NOT_VERIFIED",
  "15": "SMS_DESTINATION_NOT_ALLOWED",
  "16": "SERVICE_UNAVAILABLE",
  "17": "PIN_INVALID",
  "18": "PIN_LOCKED",
  "19": "AUTHORIZATION_INVALID",
  "20": "IDEMPOTENCY_KEY_REUSED",
  "21": "LAST_ADMIN",
  "22": "DEVICE_LIMIT",
  "23": "STATE_CONFLICT",
  "500": "INTERNAL_ERROR"
};
