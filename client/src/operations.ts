import { OPERATION_ROUTES } from './generated/api-facts.js';
import type { operations } from './generated/openapi.js';
import type { RequestOptions, Transport } from './transport.js';

// One helper per operation of the API (contract 3 and 3.14), typed from the OpenAPI document's
// generated types: a schema change that breaks a caller breaks its build, not its users.

export type OperationId = keyof typeof OPERATION_ROUTES & keyof operations;

type JsonBody<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : never;
type QueryOf<Op extends OperationId> = operations[Op]['parameters'] extends { query?: infer Query } ? Query : never;

/** What an operation takes: its JSON body (POST) or its query (GET). */
export type OperationInput<Op extends OperationId> = (typeof OPERATION_ROUTES)[Op][0] extends 'POST' ? JsonBody<Op> : QueryOf<Op>;

/** The envelope's `data` of an operation's success. */
export type OperationData<Op extends OperationId> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': { data: infer Data } } };
}
  ? Data
  : never;

/** Whether the input can be left out: no required field. */
type InputArgs<Op extends OperationId> = [OperationInput<Op>] extends [undefined]
  ? [input?: undefined, options?: RequestOptions]
  : Partial<Record<string, unknown>> extends OperationInput<Op>
    ? [input?: OperationInput<Op>, options?: RequestOptions]
    : [input: OperationInput<Op>, options?: RequestOptions];

export type OperationCall<Op extends OperationId> = (...args: InputArgs<Op>) => Promise<OperationData<Op>>;

/** Calls an operation by its operationId: its route, its token rule, its body or query. */
export function callOperation<Op extends OperationId>(
  transport: Transport,
  operation: Op,
  input?: OperationInput<Op>,
  options: RequestOptions = {},
): Promise<OperationData<Op>> {
  const [method, path, auth] = OPERATION_ROUTES[operation];
  const withToken = options.auth ?? auth !== 'none';
  if (method === 'GET') {
    const query = { ...(input as Record<string, string | number | undefined> | undefined), ...options.query };
    return transport.request<OperationData<Op>>(method, path, undefined, { ...options, query, auth: withToken });
  }
  return transport.request<OperationData<Op>>(method, path, input ?? {}, { ...options, auth: withToken });
}

/** The operations `client.auth` has helpers of its own for: they keep a session, sign, or bind a key. */
export const AUTH_OPERATIONS = [
  'userRegister',
  'loginPhone',
  'verifyOtp',
  'loginPin',
  'stepUp',
  'passkeysLogin',
  'logout',
  'tokenRefresh',
] as const satisfies OperationId[];

/** The helpers by group, each named for what it does, each one operation. */
export const OPERATION_HELPERS = {
  devices: { list: 'devices', remove: 'devicesRemove', approve: 'devicesApprove' },
  pins: { change: 'changePin', reset: 'resetPin' },
  transactions: { authorize: 'transactionAuthorization' },
  notifications: { list: 'notifications', markRead: 'notificationsRead' },
  referrals: { program: 'referralProgram' },
  // The ceremonies themselves are client.auth.registerPasskey and loginWithPasskey; these are their steps, and the list.
  passkeys: {
    list: 'passkeys',
    remove: 'passkeysRemove',
    registerOptions: 'passkeysRegisterOptions',
    register: 'passkeysRegister',
    loginOptions: 'passkeysLoginOptions',
  },
  account: {
    profile: 'userProfile',
    update: 'userProfileUpdate',
    export: 'userExport',
    delete: 'userDelete',
    changePhone: 'userPhoneChange',
    cancelPhoneChange: 'userPhoneChangeCancel',
    cancelChange: 'userChangesCancel',
    notMe: 'userSecurityNotMe',
  },
  admin: {
    setRole: 'adminEmployeeRole',
    approveRole: 'adminEmployeesApprove',
    approveEmployeeDevice: 'adminEmployeesDevicesApprove',
    listApprovals: 'adminApprovalsList',
    searchUsers: 'adminUsersSearch',
    viewUser: 'adminUsersView',
    endSessions: 'adminUsersSessionsEnd',
    setStatus: 'adminUsersStatus',
    removeDevice: 'adminUsersDevicesRemove',
    removePasskey: 'adminUsersPasskeysRemove',
    restore: 'adminUsersRestore',
    startRecovery: 'adminUsersPhoneRecover',
    approveRecovery: 'adminUsersPhoneApprove',
    cancelRecovery: 'adminUsersPhoneCancel',
    viewCompany: 'adminCompanyView',
    updateCompany: 'adminCompanyUpdate',
    approveCompany: 'adminCompanyApprove',
  },
} as const satisfies Record<string, Record<string, OperationId>>;

type HelperTable = typeof OPERATION_HELPERS;
export type OperationHelpers = {
  [Group in keyof HelperTable]: { [Name in keyof HelperTable[Group]]: OperationCall<Extract<HelperTable[Group][Name], OperationId>> };
};

export function operationHelpers(transport: Transport): OperationHelpers {
  const groups = Object.entries(OPERATION_HELPERS).map(([group, helpers]) => [
    group,
    Object.fromEntries(
      Object.entries(helpers).map(([name, operation]) => [
        name,
        (input?: never, options?: RequestOptions) => callOperation(transport, operation, input, options),
      ]),
    ),
  ]);
  return Object.fromEntries(groups) as OperationHelpers;
}
