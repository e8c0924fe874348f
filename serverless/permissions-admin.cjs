// The back office's roles (API contract 3.14), one per function, in the form of
// serverless/permissions.cjs, which takes them in.
const {
  appendStaffRecord,
  recordSessionUse,
  recordUseAndEndSessions,
  keepAnswers,
  readCompanyAndSession,
  UNREAD,
  END_CHANGE,
} = require('./permission-parts.cjs');

/** Staff who strip the owner's defences (contract 3.15, second reading): SMS-strength changes ended, new ones frozen for 72 h. */
const STAFF_FREEZE = [
  { actions: ['Query'], keys: ['pendingChange'] },
  END_CHANGE,
  { actions: ['DeleteItem'], keys: ['phoneChangeIndex'] },
  { actions: ['PutItem'], keys: ['changeFreeze'] },
];

// An employee's role, with who gave it and since when (lib/store/staff-store.ts employeeRoleChange);
// its condition reads the type and the status.
const ROLE = ['role', 'role_since', 'role_granted_by', 'role_approved_by', 'updated_at', 'user_type', 'status_id'];
// A grant approved once, while unexpired (lib/store/staff-store.ts grantApproval).
const GRANT_APPROVAL = ['status', 'approved_by', 'approved_at', 'expires_at'];
// The settings company:update writes, never the status: IAM refuses an update naming it.
const COMPANY_SETTINGS = [
  'name',
  'require_verified_phone',
  'sms_countries',
  'sms_text',
  'sms_per_hour',
  'sms_per_prefix_per_hour',
  'sends_per_address_per_hour',
  'verifies_per_address',
  'updated_at',
];

module.exports = {
  // The back office (API contract 3.14): reads the acting employee's role on every call, and writes
  // the record of every action in the company's log and the user's partition.
  // A role that takes power away, set at once (its seat given up with one fewer admin); a role that
  // gives power, asked as a grant another admin approves (adminEmployeesApprove).
  adminEmployeeRole: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user'] },
      // The role alone of an employee's record, with who gave it and since when (its condition reads the type and status).
      { actions: ['UpdateItem'], keys: ['user'], attributes: ROLE },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      { actions: ['DeleteItem'], keys: ['adminSeat'] },
      { actions: ['PutItem'], keys: ['staffAction', 'grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Another admin settles an employee's device (contract 3.14, second reading): its two items'
  // probation removed; the approver rules read the employee.
  adminEmployeesDevicesApprove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'], attributes: ['probation_since', 'probation_held'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Another admin approves a role grant: the grant marked approved (once, while unexpired), the role
  // set, an admin's seat taken with one more in the count; the approver rules read the one who asked.
  adminEmployeesApprove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'grant'] },
      { actions: ['UpdateItem'], keys: ['grant'], attributes: GRANT_APPROVAL },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ROLE },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      { actions: ['PutItem'], keys: ['adminSeat', 'staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // What awaits approval: the company's grants and listed recoveries, each recovery's change read.
  adminApprovalsList: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      { actions: ['Query'], keys: ['grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  adminUsersSearch: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      // The acting employee; the user an exact key names, through its claim or its id.
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'emailClaim', 'referralCode'] },
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Reads one user's partition, kind by kind (profile and referral count, devices, sessions, PIN
  // tries, pending phone change, notifications, staff actions), and writes only the view's record.
  adminUsersView: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      // The acting employee and the user viewed; the tallies of each PIN; the pending changes.
      { actions: ['GetItem'], keys: ['user'] },
      {
        actions: ['Query'],
        keys: ['user', 'userDevice', 'session', 'notification', 'staffAction', 'pinTries', 'pendingChange', 'userPasskey'],
      },
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // The company's settings (API contract 3.14, 6 and 7), admin only: the view reads the company (as
  // every function does) and writes its record in the company's log; the update writes the settings
  // company:update writes, never the status, in one transaction with its record.
  adminCompanyView: {
    table: [keepAnswers, readCompanyAndSession, ...appendStaffRecord, { actions: ['GetItem'], keys: ['user'] }, recordSessionUse],
    secret: true,
    signingKeys: 'verify',
  },
  adminCompanyUpdate: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['UpdateItem'], keys: ['company'], attributes: COMPANY_SETTINGS },
      // A change of a security setting, asked as a grant another admin applies (adminCompanyApprove).
      { actions: ['PutItem'], keys: ['grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Another admin applies a change of the security settings: the grant marked approved (once, while
  // unexpired) with the settings' attributes, as company/update writes them; the one who asked read.
  adminCompanyApprove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'grant'] },
      { actions: ['UpdateItem'], keys: ['grant'], attributes: GRANT_APPROVAL },
      { actions: ['UpdateItem'], keys: ['company'], attributes: COMPANY_SETTINGS },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // The back office's actions on a user (API contract 3.14): each writes, beside its change, the
  // record of the action and notice 8 in the user's list (with its unread count).
  adminUsersSessionsEnd: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['session'] },
      // No session granted since the sessions were read (session_version): the end of all of them.
      { actions: ['ConditionCheckItem'], keys: ['user'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  adminUsersStatus: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim'] },
      { actions: ['Query'], keys: ['session'] },
      // The status alone (from the status read, no session granted meanwhile), on the user and on the phone claim they hold.
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'], attributes: ['status_id', 'updated_at', 'session_version', ...UNREAD] },
      { actions: ['UpdateItem'], keys: ['phoneClaim'], attributes: ['status_id', 'user_id'] },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      // The company's count of active admins: a disabled admin's seat given up, an enabled one's taken, another employee's checked absent.
      { actions: ['DeleteItem', 'PutItem', 'ConditionCheckItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  adminUsersDevicesRemove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // One off the user's device count, and nothing else of the user.
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'], attributes: ['device_count', ...UNREAD] },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // As the user's own passkeys/remove, with the staff record (and its notice 8) in the removal's transaction.
  adminUsersPasskeysRemove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'userPasskey'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  adminUsersRestore: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user'] },
      // Active again (from this deletion only), its claims taken back, off the due list.
      {
        actions: ['UpdateItem'],
        keys: ['user', 'unreadCount'],
        attributes: ['status_id', 'updated_at', 'erase_after', 'deleted_at', 'deleted_device_keys', ...UNREAD],
      },
      { actions: ['PutItem'], keys: ['phoneClaim', 'emailClaim', 'staffAction', 'notification'] },
      { actions: ['DeleteItem'], keys: ['erasureDue'] },
      // A restored admin is an active admin again: a seat, one more in the count.
      { actions: ['PutItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Assisted recovery (contract 3.14): the user, their pending change and the new number's claim
  // read; the change stored awaiting approval with its index item by the new number (a replaced
  // one's deleted), the claim checked free; the record and notice 8 in the same transaction.
  adminUsersPhoneRecover: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      // A start is a lookup (ADMIN_LOOKUPS_PER_HOUR), recorded even when refused.
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      // Listed as awaiting approval (a replaced one's listing deleted).
      { actions: ['PutItem'], keys: ['pendingChange', 'phoneChangeIndex', 'staffAction', 'notification', 'awaitingRecovery'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'awaitingRecovery'] },
      { actions: ['ConditionCheckItem'], keys: ['phoneClaim'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Its approval by another admin: the change and its index item set to run from now; notices 9 and
  // 8, the record; then the old number warned by SMS.
  adminUsersPhoneApprove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange', 'phoneChangeIndex'],
        attributes: [
          'effective_at',
          'expires_at',
          'approved_by',
          'approved_at',
          'awaiting_approval',
          'change_id',
          'user_id',
          'ended_reason',
          'started_by',
        ],
      },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // Off the approvals list.
      { actions: ['DeleteItem'], keys: ['awaitingRecovery'] },
      recordSessionUse,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // A pending change cancelled by support: marked ended, its index item deleted, notices 10 and 8, the record.
  adminUsersPhoneCancel: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      ...appendStaffRecord,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange', 'unreadCount'],
        attributes: [...UNREAD, 'ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
      },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'awaitingRecovery'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
};
