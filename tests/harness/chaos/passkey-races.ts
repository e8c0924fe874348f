import { randomUUID } from 'node:crypto';
import { SESSION_PREFIX, userPasskeyCountKey, userPasskeyKey } from '../../../lib/store/keys.js';
import { SoftAuthenticator } from '../soft-authenticator.js';
import { itemId, type StoredItem } from '../table-snapshot.js';
import { type ChaosContext, type Registered, sleep } from './context.js';

// A passkey login racing the passkey's removal (API contract 3.16; 3.15 second reading: a session
// begun by a passkey ends when that passkey is removed). The owner, signed in strongly by a PIN
// login, registers a passkey; then three logins with it (each its own options and assertion) and the
// owner's removal of it are sent at once, through the faults. Whatever the order: a login answered 200
// holds a session that the removal ended (its token refused once the removal is answered), and none
// answered after the removal succeeds. Afterwards the table (`check`) holds no item of a removed
// passkey, no live session begun by it, and the user's passkey count says what is left.

/** The run's company's relying party (run.ts sets its webauthn settings before the faults). */
export const CHAOS_RP_ID = 'wallet.example.com';
export const CHAOS_ORIGIN = `https://${CHAOS_RP_ID}`;
const LOGINS = 3;
const ROUNDS = 4;

interface PasskeyRace {
  account: Registered;
  passkeyId: string;
  /** The removal's Idempotency-Key and the strong session that sent it. */
  removalKey: string;
  authorization: string;
  /** The removal answered 200 (or, retried, 404: its first run removed it). Undefined while ambiguous. */
  removed?: boolean;
  /** Logins answered 200: their access tokens, and whether each was answered before the removal was sent. */
  sessions: { token: string; answeredBeforeRemoval: boolean }[];
  /** Logins still ambiguous at the race's end: sent again with their key after the faults. */
  pendingLogins: { key: string; body: unknown }[];
}

export function passkeyRaces(ctx: ChaosContext, { atLeast }: { atLeast: number }) {
  const { report, wrong, call, untilDefinite, isAmbiguous } = ctx;
  const figures = report.passkeys;
  const races: PasskeyRace[] = [];
  /** Attempts still preparing a race (past it: figures.registered, a passkey registered). */
  let preparing = 0;
  // Wrong PINs left on the device's tally do not matter: the race begins with a right one, which clears them.
  const eligible = (account: Registered) => account.device !== undefined && !account.pinLocked;

  /** A definite answer with the request's key, or the last ambiguous one. */
  const keyed = (name: Parameters<typeof call>[0], body: unknown, headers: Record<string, string> = {}) => {
    const key = randomUUID();
    return untilDefinite(() => call(name, body, { ...headers, 'Idempotency-Key': key }), ROUNDS);
  };

  /** One login with the passkey: its options, then the assertion (sent once; an ambiguous one kept for after the faults). */
  const login = async (race: PasskeyRace, authenticator: SoftAuthenticator, removalSent: () => boolean) => {
    const options = await keyed('passkeysLoginOptions', {});
    if (options.status !== 200) {
      if (!isAmbiguous(options)) wrong('passkey race: login options refused', options);
      return;
    }
    const body = authenticator.get(options.body.data.options, CHAOS_ORIGIN);
    const key = randomUUID();
    const answer = await call('passkeysLogin', body, { 'Idempotency-Key': key });
    figures.logins++;
    if (answer.status === 200) race.sessions.push({ token: answer.body.data.token.token, answeredBeforeRemoval: !removalSent() });
    else if (isAmbiguous(answer)) race.pendingLogins.push({ key, body });
    else if (answer.status === 401) figures.loginsRefused++;
    else wrong('passkey race: a login answered neither a session nor a refusal', answer);
  };

  const flow = () =>
    ctx.withAccount(eligible, async (account) => {
      preparing++;
      figures.attempts++;
      // An attempt whose preparation a fault stopped (no passkey registered) leaves room for another.
      let prepared = false;
      try {
        await raceOn(account, () => {
          prepared = true;
          preparing--;
        });
      } finally {
        if (!prepared) preparing--;
      }
    });

  /** One race on the account: a passkey registered (then `registeredOne`), its logins racing its removal. */
  const raceOn = async (account: Registered, registeredOne: () => void) => {
    // Out of every other flow for good: its sessions and passkey are the race's to check.
    account.passkeyRaced = true;
    if (!(await ctx.freshPinLogin(account, ROUNDS))) return;
    const authorization = `Token ${account.token}`;
    const authenticator = new SoftAuthenticator();
    const options = await keyed('passkeysRegisterOptions', {}, { Authorization: authorization });
    if (options.status !== 200) {
      if (!isAmbiguous(options)) wrong('passkey race: registration options refused', options);
      return;
    }
    const registered = await keyed('passkeysRegister', authenticator.create(options.body.data.options, CHAOS_ORIGIN), {
      Authorization: authorization,
    });
    if (registered.status !== 200) {
      if (!isAmbiguous(registered)) wrong('passkey race: registration refused', registered);
      return;
    }
    figures.registered++;
    registeredOne();
    const race: PasskeyRace = {
      account,
      passkeyId: registered.body.data.passkey_id,
      removalKey: randomUUID(),
      authorization,
      sessions: [],
      pendingLogins: [],
    };
    races.push(race);
    let removalSentAt = Number.POSITIVE_INFINITY;
    const removal = async () => {
      await sleep(Math.random() * 30);
      removalSentAt = Date.now();
      let ambiguousBefore = false;
      const answer = await untilDefinite(async () => {
        const each = await call(
          'passkeysRemove',
          { passkey_id: race.passkeyId },
          { Authorization: authorization, 'Idempotency-Key': race.removalKey },
        );
        ambiguousBefore ||= isAmbiguous(each);
        return each;
      }, ROUNDS);
      // A retry after a 503 whose removal still landed finds no passkey (404 code 6): removed, as the table will show.
      if (answer.status === 200 || (ambiguousBefore && answer.status === 404 && answer.body.error[0] === 6)) race.removed = true;
      else if (!isAmbiguous(answer)) wrong('passkey race: the owner’s removal was refused', answer);
    };
    await Promise.all([removal(), ...Array.from({ length: LOGINS }, () => login(race, authenticator, () => Date.now() >= removalSentAt))]);
    figures.races++;
  };

  /** A race asked for and not started yet, whether or not an account is free for it. */
  const asked = () => figures.registered + preparing < atLeast;
  /** A race asked for, with an account free for it. */
  const wanted = () => (asked() && ctx.registered.some((account) => ctx.isFree(account) && eligible(account)) ? flow : undefined);

  /** Faults off: the ambiguous logins and removals again with their keys; then every session a login answered must be over. */
  const afterFaults = async () => {
    for (const race of races) {
      for (const pending of race.pendingLogins) {
        const answer = await untilDefinite(() => call('passkeysLogin', pending.body, { 'Idempotency-Key': pending.key }), 20);
        if (answer.status === 200) race.sessions.push({ token: answer.body.data.token.token, answeredBeforeRemoval: false });
        else if (answer.status !== 401) wrong('passkey race: an ambiguous login retried with its key had no definite outcome', answer);
      }
      if (race.removed === undefined) {
        const answer = await untilDefinite(
          () =>
            call(
              'passkeysRemove',
              { passkey_id: race.passkeyId },
              { Authorization: race.authorization, 'Idempotency-Key': race.removalKey },
            ),
          20,
        );
        // 404: its first run removed it.
        if (answer.status === 200 || answer.status === 404) race.removed = true;
        else wrong('passkey race: an ambiguous removal retried with its key had no definite outcome', answer);
      }
      if (race.removed) figures.removed++;
      for (const session of race.sessions) {
        const listed = await call('passkeys', undefined, { Authorization: `Token ${session.token}` }, 'GET');
        if (race.removed && listed.status !== 401) wrong('passkey race: a session begun by a removed passkey still works', listed);
        if (race.removed && listed.status === 401) figures.sessionsEnded++;
      }
    }
  };

  /** No item of a removed passkey, no live session it began; the count is what is left. */
  const check = (items: StoredItem[]) => {
    const byId = new Map(items.map((item) => [itemId(item), item]));
    for (const race of races) {
      figures.checked++;
      const { account, passkeyId } = race;
      const passkey = byId.get(itemId(userPasskeyKey(ctx.companyId, account.userId, passkeyId)));
      const count = Number(byId.get(itemId(userPasskeyCountKey(ctx.companyId, account.userId)))?.passkey_count ?? 0);
      const problem = (what: string) => {
        figures.problems++;
        wrong(`passkey race: user ${account.userId}: ${what}`);
      };
      if (!race.removed) continue;
      if (passkey) problem('the passkey answered removed is still stored');
      if (count !== 0) problem(`the passkey count is ${count}, not 0`);
      const live = items.filter(
        (item) =>
          item.pk === userPasskeyKey(ctx.companyId, account.userId, passkeyId).pk &&
          item.sk.startsWith(SESSION_PREFIX) &&
          item.passkey_id === passkeyId &&
          item.ended_reason === undefined,
      );
      if (live.length) problem(`${live.length} session(s) begun by the removed passkey are live`);
    }
  };

  return { flow, asked, wanted, afterFaults, check };
}
