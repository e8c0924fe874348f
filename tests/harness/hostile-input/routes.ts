import { endpoints } from '../../../lib/api/endpoints.js';
import type { Endpoint } from '../../../lib/http/endpoint.js';
import type { EndpointName } from '../in-process-service.js';

// What the generators know of each endpoint: its method and path, and the fields its body takes.

export type { EndpointName };

const route = ({ method, path }: Endpoint) => ({ method, path });

export const PATHS: Record<EndpointName, { method: string; path: string }> = {
  userRegister: route(endpoints.userRegister),
  loginPhone: route(endpoints.loginPhone),
  verifyOtp: route(endpoints.verifyOtp),
  referralProgram: route(endpoints.referralProgram),
  loginPin: route(endpoints.loginPin),
  devices: route(endpoints.devices),
  devicesRemove: route(endpoints.devicesRemove),
  changePin: route(endpoints.changePin),
  resetPin: route(endpoints.resetPin),
  notifications: route(endpoints.notifications),
  notificationsRead: route(endpoints.notificationsRead),
  transactionAuthorization: route(endpoints.transactionAuthorization),
  tokenRefresh: route(endpoints.tokenRefresh),
  userProfile: route(endpoints.userProfile),
  userProfileUpdate: route(endpoints.userProfileUpdate),
  userExport: route(endpoints.userExport),
  // The fixture's sessions began by registration: a phone change is refused them (400 code 14), never made.
  userPhoneChange: route(endpoints.userPhoneChange),
  // The fixture's session began by registration: a deletion is refused it (400 code 14), never done.
  userDelete: route(endpoints.userDelete),
  // After the others: a logout that succeeds ends one of the fixture's sessions.
  logout: route(endpoints.logout),
  notFound: { method: 'POST', path: '/wallet/v3/auth/nothing_here' },
};

export const FIELDS: Record<Exclude<EndpointName, 'notFound'>, string[]> = {
  userRegister: [
    'dial_code',
    'phone_number',
    'user_type',
    'first_name',
    'last_name',
    'account_number_prefix',
    'password',
    'email',
    'login_pin',
    'transaction_pin',
    'status_id',
    'birth_date',
    'image',
    'kyc_status',
    'country_id',
    'kyc_process_status',
    'location_point',
    'location_poin',
    'device_type',
    'device_id',
    'parent_user_id',
    'device_unique_id',
    'referral_code',
    'phone_verification_token',
    'cretaed_by',
  ],
  loginPhone: ['dial_code', 'phone_number', 'user_type', 'otp_type'],
  verifyOtp: ['dial_code', 'phone_number', 'user_type', 'otp_type', 'otp'],
  referralProgram: ['user_id'],
  loginPin: ['device_key', 'login_pin', 'timestamp', 'nonce', 'signature'],
  // It takes no body: whatever one holds is ignored.
  devices: ['device_key'],
  devicesRemove: ['device_key'],
  changePin: ['pin_type', 'current_pin', 'new_pin'],
  resetPin: ['pin_type', 'new_pin', 'phone_verification_token'],
  notifications: ['unread'],
  notificationsRead: ['ids', 'all', 'before'],
  transactionAuthorization: ['transaction_pin', 'amount', 'currency', 'payee', 'reference'],
  tokenRefresh: ['refresh_token'],
  // They take no body: whatever one holds is ignored.
  userProfile: ['user_id'],
  userExport: ['user_id'],
  userPhoneChange: ['dial_code', 'phone_number', 'phone_verification_token', 'user_type'],
  userDelete: ['user_id', 'confirm'],
  userProfileUpdate: ['first_name', 'last_name', 'email', 'image', 'birth_date', 'location_point', 'phone_number', 'status_id'],
  logout: ['scope'],
};

export const isGet = (endpoint: EndpointName) => PATHS[endpoint].method === 'GET';
