import { AsyncLocalStorage } from 'node:async_hooks';
import type { Proven } from '../event-check.js';

// What a chaos run reports (tests/harness/chaos/run.ts), and the share of it its race flow keeps
// (one-account-race.ts): below both, so that neither imports the other for it.

/** The requests of the flow a client runs (run.ts counts each flow's in report.byFlow). */
export const flowRequests = new AsyncLocalStorage<{ requests: number }>();

/** How the account ends while it moves. */
export type RaceEnding = 'deletion' | 'disable' | 'none';

export interface RaceReport {
  /** Accounts picked for a race, and races fired (their login and proof answered), by how the account ended. */
  attempts: number;
  flows: number;
  byEnding: Record<RaceEnding, number>;
  /** OTP logins to the number being left: codes sent (an SMS went), logins answered 200, refused (the code gone or the user ended). */
  loginCodes: number;
  loginsAnswered: number;
  loginsRefused: number;
  /** Racing phone changes and emails answered 200 (in the run or on their retry after the faults). */
  phoneChanged: number;
  emailChanged: number;
  /** OTP logins to the old number still ambiguous in the run, sent again with their key after the faults. */
  loginsRetried: number;
}

export const emptyRaceReport = (): RaceReport => ({
  attempts: 0,
  flows: 0,
  byEnding: { deletion: 0, disable: 0, none: 0 },
  loginCodes: 0,
  loginsAnswered: 0,
  loginsRefused: 0,
  phoneChanged: 0,
  emailChanged: 0,
  loginsRetried: 0,
});

/**
 * Races around a pending phone change (issue 39, tests/harness/chaos/pending-changes.ts and
 * phone-recoveries.ts): attempts (an account picked), races fired (the change pending or approved,
 * the racing requests sent), how each ended, and `overlapped`: races whose racing requests were in
 * flight at the same time (one sent before the other was answered), not one after the other.
 */
export interface PendingChangeReport {
  /** A user's own pending change (OTP login, login PIN, proof of the new number) racing its cancel and the completing login. */
  cancels: { attempts: number; pending: number; races: number; cancelled: number; completed: number; overlapped: number };
  /** A due pending change's completing login racing the user's deletion; one that moved first is deleted after, on its new session. */
  deletions: { attempts: number; pending: number; races: number; deletedFirst: number; movedThenDeleted: number; overlapped: number };
  /** Support starts a recovery, an admin approves it, then its completion races the user's PIN logins (and now and then their cancel). */
  recoveries: {
    attempts: number;
    started: number;
    approved: number;
    races: number;
    completed: number;
    cancelledByUser: number;
    pinLogins: number;
    /** PIN logins answered 200 in a race the completion won: each session must have been ended by it. */
    pinLoginsEnded: number;
    pinLoginsRefused: number;
    overlapped: number;
  };
  /** Requests of these flows still ambiguous at their flow's end, sent again with their key once the faults are off. */
  retried: number;
  /** The check of pending changes, their index items and recovered users over the table (tests/harness/phone-change-check.ts). */
  table: { live: number; recovered: number; problems: number };
}

export const emptyPendingChangeReport = (): PendingChangeReport => ({
  cancels: { attempts: 0, pending: 0, races: 0, cancelled: 0, completed: 0, overlapped: 0 },
  deletions: { attempts: 0, pending: 0, races: 0, deletedFirst: 0, movedThenDeleted: 0, overlapped: 0 },
  recoveries: {
    attempts: 0,
    started: 0,
    approved: 0,
    races: 0,
    completed: 0,
    cancelledByUser: 0,
    pinLogins: 0,
    pinLoginsEnded: 0,
    pinLoginsRefused: 0,
    overlapped: 0,
  },
  retried: 0,
  table: { live: 0, recovered: 0, problems: 0 },
});

export interface ChaosReport {
  requests: number;
  /** Requests answered while the flows ran (before the run's end, ahead of the retries after it): the run's throughput. */
  requestsInRun: number;
  byStatus: Record<string, number>;
  /** Milliseconds the clients spent in requests, by the answer they got ("409 code 20"), and waiting before a retry, by the status retried. */
  msByAnswer: Record<string, number>;
  msWaitedAfter: Record<string, number>;
  /** The endpoints that answered 503, and how often: where the faults still reach the client. */
  unavailableBy: Record<string, number>;
  /** Each flow the clients ran while the run lasted: how often, for how long in all, and the requests it sent. */
  byFlow: Record<string, { runs: number; ms: number; requests: number }>;
  faultsByKind: Record<string, number>;
  smsAnswersDropped: number;
  registrations: number;
  /** Registrations that proved their phone first (a code of otp_type 2), so that a retry meets its used proof. */
  provenRegistrations: number;
  ambiguousRetried: number;
  verified: number;
  pinLogins: number;
  marksRead: number;
  /** Profile updates answered 200 (names, with or without a new email), and those with a new email. */
  profileUpdates: number;
  /** Profile updates answered pending (an SMS-strength session's names or email wait, contract 3.15). */
  profileChangesHeld: number;
  emailChanges: number;
  /** Races of 2 or 3 users for one free email, and asks for an email another user holds (each refused). */
  emailRaces: number;
  takenEmailRefusals: number;
  /** Phone changes sent with both proofs, those answered 200, and races of 2 or 3 users (each with both proofs) for one new number. */
  phoneChangesSent: number;
  phoneChanges: number;
  phoneRaces: number;
  /**
   * Phone changes retried with their key after a 503 that had in fact committed, answered "already
   * this account's number" (400 code 1) rather than their first outcome: a change run twice.
   */
  phoneChangesRerun: number;
  /** Ambiguous profile updates and phone changes, retried with their key once faults are off. */
  accountChangesRetried: number;
  /** Users disabled as user:disable does (their sessions ended with it), and those whose disable failed under faults and was run again after. */
  disabled: number;
  disablesRetried: number;
  /** Deletions asked for on a fresh OTP login and found done (status 4), and those answered 503 and sent again with their key after. */
  deletions: number;
  deletionsRetried: number;
  /** Devices removed by their user, and removals answered 503 and sent again with their key after. */
  devicesRemoved: number;
  deviceRemovalsRetried: number;
  /** Login PINs locked by wrong PINs (the lock answered 18, the right PIN refused too), and locks sought again after the faults. */
  pinLocks: number;
  pinLocksRetried: number;
  /** Races on one account (tests/harness/chaos/one-account-race.ts): its end, its move, a new email and logins to the number it leaves, at once. */
  race: RaceReport;
  /** Races around pending phone changes and assisted recoveries (issue 39). */
  pendingChanges: PendingChangeReport;
  /**
   * A SIM swapper against the owner (issue 47, tests/harness/chaos/sim-swap-races.ts): accounts picked,
   * races fired, held changes answered, the owner's cancels, not_me and right-PIN logins answered 200,
   * races whose not_me or owner's login was in flight with a swapper's request; then the table check:
   * races checked, PIN resets and device removals found done, the problems.
   */
  /** A passkey login racing its removal (passkey-races.ts): accounts picked, passkeys registered, races, logins sent and refused, removals, sessions found ended, races checked over the table and problems. */
  /** Device removals answered held (a settled device, an SMS-strength session: contract 3.15). */
  deviceRemovalsHeld?: number;
  passkeys: {
    attempts: number;
    registered: number;
    races: number;
    logins: number;
    loginsRefused: number;
    removed: number;
    sessionsEnded: number;
    checked: number;
    problems: number;
  };
  swaps: {
    attempts: number;
    races: number;
    held: number;
    cancelled: number;
    notMe: number;
    ownerLogins: number;
    overlapped: number;
    checked: number;
    resetsDone: number;
    devicesRemoved: number;
    problems: number;
  };
  /**
   * Races in the back office (issue 48, tests/harness/chaos/staff-races.ts): races run by kind, grants
   * approved in one, races whose first two requests were in flight together, refusals of the last active admin
   * (409 code 21), requests retried after the faults; then the companies checked (an active admin
   * kept, the count and seats right, the staff chain whole), the chain records checked, the problems.
   */
  staff: {
    races: number;
    byKind: Record<string, number>;
    grants: number;
    overlapped: number;
    lastAdminRefused: number;
    retried: number;
    companies: number;
    chainRecords: number;
    problems: number;
  };
  /** The claims checked afterwards (tests/harness/claim-check.ts) and the problems found. */
  claims: { phoneClaims: number; emailClaims: number; holders: number; problems: number };
  /**
   * The sessions of the OTP logins answered, checked afterwards (tests/harness/session-check.ts):
   * those still live, and those live though begun by a code to a number their user has left.
   */
  sessions: { otpLogins: number; live: number; problems: number };
  /**
   * The events (issue 31): the bus's faults, the publisher's calls, the stream batches handed again
   * (a batch item failure or a thrown batch), and the check over the table afterwards.
   */
  events: {
    putEventsCalls: number;
    deadLetterCalls: number;
    faults: { calls: number; entries: number; deadLetterCalls: number };
    batches: number;
    batchesHandedAgain: number;
    givenUp: number;
    /** Seconds from faults off to the last record answered. */
    drainSeconds: number;
    received: number;
    distinct: number;
    deadLettered: number;
    byType: Record<string, number>;
    proven: Proven;
    problems: number;
  };
  wrong: string[];
}

/** A report before the run: every figure 0. */
export const emptyReport = (): ChaosReport => ({
  requests: 0,
  requestsInRun: 0,
  byStatus: {},
  msByAnswer: {},
  msWaitedAfter: {},
  unavailableBy: {},
  byFlow: {},
  faultsByKind: {},
  smsAnswersDropped: 0,
  registrations: 0,
  provenRegistrations: 0,
  ambiguousRetried: 0,
  verified: 0,
  pinLogins: 0,
  marksRead: 0,
  profileUpdates: 0,
  profileChangesHeld: 0,
  emailChanges: 0,
  emailRaces: 0,
  takenEmailRefusals: 0,
  phoneChangesSent: 0,
  phoneChanges: 0,
  phoneRaces: 0,
  phoneChangesRerun: 0,
  accountChangesRetried: 0,
  disabled: 0,
  disablesRetried: 0,
  deletions: 0,
  deletionsRetried: 0,
  devicesRemoved: 0,
  deviceRemovalsRetried: 0,
  pinLocks: 0,
  pinLocksRetried: 0,
  race: emptyRaceReport(),
  pendingChanges: emptyPendingChangeReport(),
  passkeys: { attempts: 0, registered: 0, races: 0, logins: 0, loginsRefused: 0, removed: 0, sessionsEnded: 0, checked: 0, problems: 0 },
  swaps: {
    attempts: 0,
    races: 0,
    held: 0,
    cancelled: 0,
    notMe: 0,
    ownerLogins: 0,
    overlapped: 0,
    checked: 0,
    resetsDone: 0,
    devicesRemoved: 0,
    problems: 0,
  },
  staff: { races: 0, byKind: {}, grants: 0, overlapped: 0, lastAdminRefused: 0, retried: 0, companies: 0, chainRecords: 0, problems: 0 },
  claims: { phoneClaims: 0, emailClaims: 0, holders: 0, problems: 0 },
  sessions: { otpLogins: 0, live: 0, problems: 0 },
  events: {
    putEventsCalls: 0,
    deadLetterCalls: 0,
    faults: { calls: 0, entries: 0, deadLetterCalls: 0 },
    batches: 0,
    batchesHandedAgain: 0,
    givenUp: 0,
    drainSeconds: 0,
    received: 0,
    distinct: 0,
    deadLettered: 0,
    byType: {},
    proven: { users: 0, sessionsEnded: 0, devices: 0, phoneChanges: 0, statuses: 0, profileUpdates: 0, pinLocks: 0 },
    problems: 0,
  },
  wrong: [],
});
