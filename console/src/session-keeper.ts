import type { WalletAuthClient } from '../../client/src/index.js';

// When the page goes (a reload, a closed tab) it logs its session out with a keepalive request,
// which the browser delivers after the page is gone. A request the client sends before it (a
// refresh, for an access token about to expire) is an ordinary one, dropped with the page, and the
// logout after it was never sent: the session stayed live (the insider review's finding 5). So
// while the page is open its access token is kept with at least FRESH_FOR_MS to live: checked every
// CHECK_EVERY_MS and when the page is shown again, refreshed when it has less. The logout on page
// exit then always goes with the token it has. The API's logout is unchanged: it takes the access token.

/** Longer than a hidden tab's throttled timers wait (a minute), so a token never gets near its end between two checks. */
const FRESH_FOR_MS = 2 * 60_000;
/** Under the service's DPOP_PROOF_MAX_AGE_SECONDS (60 s): the logout made ready at a check is still good at the next. */
export const CHECK_EVERY_MS = 20_000;

/** What the keeper gives the page: stop keeping, and the logout to send as the page goes. */
export interface SessionKeeper {
  stop: () => void;
  /** Sends the logout made ready at the last check, at once (no await: the page is going); else an ordinary one. */
  leave: () => void;
}

/**
 * Keeps the client's session fresh until stopped (the session ended, or the agent signed out), and
 * a logout ready to send with it. A session bound to this browser's key (DPoP, a remembered browser)
 * proves its key on every call, and a proof is signed asynchronously: one signed as the page goes
 * would come after the page. So the logout is made ready, its proof signed, at every check.
 */
export function keepSessionFresh(client: WalletAuthClient): SessionKeeper {
  let readyLogout: (() => void) | undefined;
  /** The check the ready logout comes from: a later check's, made after a refresh an earlier one began before, is never replaced by that earlier one's. */
  let readyFrom = 0;
  let checks = 0;
  // A refusal ends the session through the client's onSessionEnd: nothing to do here.
  const check = () => {
    const number = ++checks;
    const startedAt = Date.now();
    void client.auth
      .accessToken({ validForMs: FRESH_FOR_MS })
      .then(() => client.auth.prepareLogout())
      .then((ready) => {
        if (number < readyFrom) return;
        readyLogout = ready;
        readyFrom = number;
        // When the check whose logout is ready began (page clock, ms): a page's tests wait on it.
        document.documentElement.dataset.logoutReadyAt = String(startedAt);
      })
      .catch(() => undefined);
  };
  const onShown = () => {
    if (document.visibilityState === 'visible') check();
  };
  const timer = setInterval(check, CHECK_EVERY_MS);
  document.addEventListener('visibilitychange', onShown);
  check();
  return {
    stop: () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onShown);
      // No check still under way makes one ready again.
      readyLogout = undefined;
      readyFrom = Number.POSITIVE_INFINITY;
      delete document.documentElement.dataset.logoutReadyAt;
    },
    leave: () => {
      if (readyLogout) readyLogout();
      else void client.auth.logout().catch(() => undefined);
    },
  };
}
