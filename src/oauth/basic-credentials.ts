import type { ClientAuth } from 'oauth4webapi';

// RFC 6749 §2.3.1 asks for the id and secret form-encoded inside the Basic header; servers in the
// field split: some decode them, many (Domino, Gravitee, and others reported against oauth4webapi)
// compare them as sent. Characters of RFC 3986's unreserved set (letters, digits, - . _ ~) read the
// same either way, so they go as they are; everything else is percent-encoded, byte by byte in
// UTF-8, which a decoding server reads back exactly. A space becomes %20, never `+`, so a server
// that decodes with a URI decoder rather than a form decoder reads it too.
const BEYOND_URI_COMPONENT = /[!'()*]/g;
// A lone surrogate has no UTF-8 form; it goes as U+FFFD, as a UTF-8 encoder writes it.
const LONE_SURROGATE = /\p{Cs}/gu;

/** One half of Basic credentials: RFC 3986 unreserved characters kept, every other one percent-encoded. */
export function encodeBasicPart(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(BEYOND_URI_COMPONENT, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The `Authorization` value for a client id and secret. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeBasicPart(clientId)}:${encodeBasicPart(clientSecret)}`, 'ascii').toString('base64')}`;
}

/** client_secret_basic as oauth4webapi's client authentication hook, with the encoding above. */
export function clientSecretBasic(clientSecret: string): ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', basicAuthorization(client.client_id, clientSecret));
  };
}
