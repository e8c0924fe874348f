import type { KeyObject } from 'node:crypto';
import type { Config } from '../../../lib/config.js';
import type { Answer, EndpointName, InProcessService } from '../in-process-service.js';
import type { OtpLogin, PhoneChangeSent } from '../session-check.js';
import type { FakeSns } from '../sns-fake.js';
import type { ChaosReport } from './report.js';

// What the chaos run's flows share (tests/harness/chaos-run.ts): the accounts answered, the way
// requests are sent and judged, and what is left to retry once the faults are off. A flow in a
// module of its own (tests/harness/chaos/<flow>.ts) is built from this.

/** A registered account as the run knows it from the answers. */
export interface Registered {
  userId: string;
  referralCode: string;
  token: string;
  referredBy?: string;
  loggedOut: boolean;
  /** Held by one client's flow on this account while it runs. */
  inUse?: boolean;
  /** The device bound at registration, and the login PIN it unlocks. */
  device?: { privateKey: KeyObject; deviceKey: string };
  loginPin: string;
  /** Wrong PINs sent since the last right one (answered or not): kept under the lock's 5. */
  wrongPins: number;
  /** The current token's session is bound to the device (registered with it, or a PIN login): removing the device ends it. */
  tokenOnDevice: boolean;
  /** Its login PIN locked, or being locked (from the first wrong PIN on): PIN logins leave it alone until an OTP login opens it. */
  pinLocked?: boolean;
  /** The national number and email as last answered (an ambiguous change parks the account until its retry answers). */
  phone: string;
  email: string | undefined;
  /**
   * The answers cannot tell its phone or email: a change answered 503 whose retry found the
   * account ended (401) may have committed first. The table's phone and email are not compared.
   */
  uncertain?: boolean;
  /** When a code may next be sent to its phone (ms, service clock): the send interval per phone. */
  quietAfter: number;
  /** An ambiguous profile update or phone change waits for its retry after the run: no flow uses it. */
  parked?: boolean;
  /** Disabled by an operator (status 2): no flow uses it again. */
  disabled?: boolean;
  /** Its deletion asked for (status 4, or maybe, until its retry): no flow uses it again. */
  deleted?: boolean;
}

/** A profile update or phone change, and what a definite answer means for its account. */
export interface AccountChange {
  account: Registered;
  name: 'userProfileUpdate' | 'userPhoneChange';
  body: Record<string, unknown>;
  /** What a definite answer means for the account, or why it is wrong. */
  settle: (answer: Answer) => void;
}

export interface ChaosContext {
  config: Config;
  companyId: string;
  /** The service, and containers of its deployment whose clocks run 1, 2, 3 send intervals ahead (a phone's codes, one per interval; their calls slowed). */
  service: InProcessService;
  ahead: InProcessService[];
  /** A container on the service's clock whose DynamoDB calls each wait a few ms first (as do those of the ones ahead). */
  slow: InProcessService;
  /** Seconds between two codes to one phone, and one more. */
  interval: number;
  sns: FakeSns;
  report: ChaosReport;
  /** When the flows stop (Date.now()): none starts a request chain after it. */
  endAt: number;
  registered: Registered[];
  wrong: (what: string, answer?: Answer) => void;
  /** The run's log (ChaosOptions.log). */
  log: (line: string) => void;
  call: (name: EndpointName, body: unknown, headers?: Record<string, string>, method?: string, via?: InProcessService) => Promise<Answer>;
  /** An answer that says nothing of the outcome: 503, or 409 code 20 (its first request still at work). */
  isAmbiguous: (answer: Answer) => boolean;
  /** Sends a request with its key until it has a definite answer, at most `rounds` times again. */
  untilDefinite: (send: () => Promise<Answer>, rounds: number) => Promise<Answer>;
  /** No client uses the account, and it is not waiting for a retry nor ended. */
  isFree: (account: Registered) => boolean;
  /** An account no other client is using, marked as in use until `flow` ends. */
  withAccount: (eligible: (account: Registered) => boolean, flow: (account: Registered) => Promise<void>) => Promise<void>;
  /**
   * A code sent to a number and verified, each retried with its key (`rounds` times again, 2 unless
   * told): the verification's answer, or undefined. None is sent past the run's end, unless told.
   */
  sendAndCheck: (
    target: Record<string, unknown>,
    headers: Record<string, string>,
    via: InProcessService,
    options?: { pastTheEnd?: boolean; rounds?: number },
  ) => Promise<Answer | undefined>;
  /** An OTP login to the account's phone answered 200: the account takes its token, and the login is recorded. */
  loggedInByOtp: (account: Registered, login: Answer) => void;
  /** An OTP login answered 200, recorded for the session check: its session and the number its code went to. */
  recordOtpLogin: (login: Answer, phoneE164: string) => void;
  /** What the session check needs from the answers (tests/harness/session-check.ts). */
  answered: { otpLogins: OtpLogin[]; phoneChanges: PhoneChangeSent[] };
  freshEmail: () => string;
  /** Users answered 200 to a profile update (each has its user.profile_updated). */
  profileUpdated: Set<string>;
  /** Work retried with its key once the faults are off. */
  pendingChanges: (AccountChange & { key: string; authorization: string })[];
  deletions: { account: Registered; eraseAfter?: number }[];
  pendingDeletions: { account: Registered; key: string; authorization: string }[];
  /** Disables the user as user:disable does (status 2, sessions ended): true when done; one that fails under faults is run again after. */
  disableUser: (account: Registered, via?: InProcessService) => Promise<boolean>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
