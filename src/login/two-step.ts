import type { Deps } from '../deps.js';
import type { PendingLogin } from '../state/pending-login.js';
import { type BackgroundListener, cancelPendingLogin, startBackgroundListener } from './background.js';
import { type LoginRequest, prepareLogin } from './transaction.js';

/**
 * The first step of a two-step login (`login --no-wait`, and `school mcp` asking the host to send
 * the person to the URL): replaces a login left pending for the profile, prepares this one and
 * leaves a background listener waiting for the browser. The caller shows the URL;
 * `waitForPendingLogin` (background.ts) learns how it ended.
 */
export async function startPendingLogin(deps: Deps, request: LoginRequest, p: { port?: number; notify(text: string): void }): Promise<{ pending: PendingLogin; replacedEarlier: boolean }> {
  const replacedEarlier = await cancelPendingLogin(deps, request.profile);
  let background: BackgroundListener | undefined;
  try {
    const pending = await prepareLogin(deps, request, {
      notify: p.notify,
      async listen(cachedRedirectUri) {
        background = await startBackgroundListener({ profile: request.profile, port: p.port, cachedRedirectUri, timeoutSeconds: request.timeoutSeconds });
        return { redirectUri: background.redirectUri, listenerPid: background.pid };
      },
    });
    return { pending, replacedEarlier };
  } catch (err) {
    await background?.stop();
    throw err;
  }
}
