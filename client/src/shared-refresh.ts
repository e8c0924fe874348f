import type { Session, SessionStorage } from './session-storage.js';

// One refresh for every client over one storage (API contract 3.12, amended): a refresh token is
// spent by its refresh, and one presented again past the 10 s grace is reuse, which ends the
// session. So two tabs over one localStorage must not each refresh. In one page (or process),
// clients over the same storage object share the refresh under way; across tabs, one runs at a
// time under a Web Lock, or, where a browser has none, under a lock held over a BroadcastChannel;
// whoever comes second reads the storage again and finds the session the first one kept.

/** Runs work while no other client over the same storage runs work under the same name. */
export type Exclusive = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** The refreshes under way in this page, per storage object and session key. */
const underWay = new WeakMap<SessionStorage, Map<string, Promise<Session>>>();

/** The refresh under way for this storage and key, or the one `start` begins: shared by every client over them in this page. */
export function sharedInPage(storage: SessionStorage, key: string, start: () => Promise<Session>): Promise<Session> {
  const refreshes = underWay.get(storage) ?? new Map<string, Promise<Session>>();
  underWay.set(storage, refreshes);
  const running = refreshes.get(key);
  if (running) return running;
  const started = start().finally(() => refreshes.delete(key));
  refreshes.set(key, started);
  return started;
}

/** How long a tab listens for another's claim before it takes the lock over a BroadcastChannel. */
const HEAR_MS = 50;
/** How long a tab waits for a holder that said nothing more (a tab closed mid-refresh) before it claims again. */
const HOLDER_SILENCE_MS = 10_000;

type LockMessage = { kind: 'claim' | 'held' | 'release'; id: string; at: number };

/**
 * A lock over a BroadcastChannel, for browsers without Web Locks. A tab claims and listens for
 * HEAR_MS: a holder answers that it holds, and of two claims the earlier wins (then the lower id),
 * the earlier claimant saying so again to one that came later. A tab that hears of one ahead waits
 * for a release (or HOLDER_SILENCE_MS, for a tab closed while it held) and claims again.
 */
function channelExclusive(): Exclusive {
  return async (name, work) => {
    const channel = new BroadcastChannel(name);
    const mine: LockMessage = { kind: 'claim', id: crypto.randomUUID(), at: 0 };
    let state: 'hearing' | 'waiting' | 'holding' = 'hearing';
    let ahead = false;
    let wake = () => {};
    channel.onmessage = ({ data }: MessageEvent<LockMessage>) => {
      if (state === 'holding' && data.kind === 'claim') channel.postMessage({ ...mine, kind: 'held' } satisfies LockMessage);
      else if (state === 'waiting' && data.kind === 'release') wake();
      else if (state === 'hearing' && data.kind === 'held') ahead = true;
      else if (state === 'hearing' && data.kind === 'claim') {
        if (data.at < mine.at || (data.at === mine.at && data.id < mine.id)) ahead = true;
        else channel.postMessage(mine);
      }
    };
    try {
      for (;;) {
        state = 'hearing';
        ahead = false;
        mine.at = Date.now();
        channel.postMessage(mine);
        await new Promise((heard) => setTimeout(heard, HEAR_MS));
        if (!ahead) break;
        state = 'waiting';
        await new Promise<void>((released) => {
          const silence = setTimeout(released, HOLDER_SILENCE_MS);
          wake = () => {
            clearTimeout(silence);
            released();
          };
        });
      }
      state = 'holding';
      return await work();
    } finally {
      if (state === 'holding') channel.postMessage({ ...mine, kind: 'release' } satisfies LockMessage);
      channel.close();
    }
  };
}

/**
 * The lock a page's tabs share: the Web Locks API, else a BroadcastChannel's. None outside a page
 * (Node, React Native), where the clients over one storage live in one process and share in it.
 */
export function tabExclusive(): Exclusive {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  // Held until the work's promise settles; awaited, request's answer is the work's.
  if (locks) return async (name, work) => await locks.request(name, work);
  if ('document' in globalThis && typeof BroadcastChannel === 'function') return channelExclusive();
  return (_name, work) => work();
}
