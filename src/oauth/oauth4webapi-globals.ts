// What the installed build's copy of oauth4webapi sees in place of the globals of these names
// (scripts/build.mjs injects this file into dist/oauth4webapi.cjs; nothing else is touched).
//
// The library names Headers and Response as globals, and in Node the first mention of either
// loads the built-in fetch implementation, about 20 ms: the largest single cost of a `school
// token` that must refresh first (ReadableStream, below, would load the web streams). Every answer it is handed already comes from our HTTP client,
// read in full, so the small classes of http/web-types.ts serve. Its `fetch` is only ever the one
// passed as customFetch; the global one would bypass the proxy, the http:// refusal and the
// redacted trace, so it is replaced by one that refuses.
export { PlainHeaders as Headers, BufferedResponse as Response } from '../http/web-types.js';

/**
 * The library asks whether a request body is a stream (it never is here: every body is a form or
 * JSON text); Node's own class would load the web streams implementation to answer.
 */
export class ReadableStream {}

export function fetch(): never {
  throw new Error('oauth4webapi sends its requests through the HTTP client (customFetch), never with the global fetch.');
}
