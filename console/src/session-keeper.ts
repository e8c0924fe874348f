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
const CHECK_EVERY_MS = 20_000;

/** Keeps the client's session fresh until the returned stop is called (the session ended, or the agent signed out). */
export function keepSessionFresh(client: WalletAuthClient): () => void {
  // A refusal ends the session through the client's onSessionEnd: nothing to do here.
  const check = () => void client.auth.accessToken({ validForMs: FRESH_FOR_MS }).catch(() => undefined);
  const onShown = () => {
    if (document.visibilityState === 'visible') check();
  };
  const timer = setInterval(check, CHECK_EVERY_MS);
  document.addEventListener('visibilitychange', onShown);
  return () => {
    clearInterval(timer);
    document.removeEventListener('visibilitychange', onShown);
  };
}
