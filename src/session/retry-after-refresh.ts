import type { Session } from './usable-session.js';

/**
 * Sends with the session's token; when the answer says the token was refused in a way a refresh
 * may cure (a 401 `invalid_token`, an inactive token), renews the session once and sends again.
 * Every front-end's requests go through here: `call`, `whoami`, the library and `school mcp`.
 */
export async function retryAfterRefresh<T>(
  session: Session,
  send: (session: Session) => Promise<T>,
  refused: (answer: T) => boolean | Promise<boolean>,
): Promise<{ answer: T; session: Session }> {
  const answer = await send(session);
  if (!session.refresh || !(await refused(answer))) return { answer, session };
  const renewed = await session.refresh();
  return { answer: await send(renewed), session: renewed };
}
