import type { Session } from './usable-session.js';

/**
 * Sends with the session's token; when the answer says the token was refused in a way a refresh
 * may cure (a 401 `invalid_token`, an inactive token), renews the session once and sends again.
 * The API client's requests (api-client.ts) and the identity lookups of `whoami` go through here.
 */
export async function retryAfterRefresh<T>(session: Session, send: (session: Session) => Promise<T>, refused: (answer: T) => boolean | Promise<boolean>): Promise<{ answer: T; session: Session }> {
  const answer = await send(session);
  if (!session.refresh || !(await refused(answer))) return { answer, session };
  const renewed = await session.refresh();
  return { answer: await send(renewed), session: renewed };
}
