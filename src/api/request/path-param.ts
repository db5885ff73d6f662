/**
 * A path parameter as OpenAPI serializes it: `simple` (`3,4,5`), `label` (`.3.4.5`), `matrix`
 * (`;id=3;id=4`), exploded or not, every value percent-encoded so it stays inside its segment;
 * `x-multi-segment` keeps the `/` between its segments. A `content` parameter is its JSON, encoded.
 */
import type { ParamShape } from '../request-shape.js';
import { encode as encodeComponent, entriesOf, isObject, scalarText } from './values.js';

/**
 * A value inside a path segment: `;` encoded too, since servers that read path parameters
 * (Tomcat, Jetty) drop what follows it, which would turn `..;x` into `..`.
 */
const encode = (text: string) => encodeComponent(text).replace(/;/g, '%3B');

/** The text that replaces `{name}` in the path template. */
export function pathParamText(param: ParamShape, value: unknown): string {
  if (param.contentType) return encode(JSON.stringify(value));
  const { style, explode, name } = param;
  if (param.multiSegment && typeof value === 'string') return value.split('/').map(encode).join('/');
  const prefix = style === 'label' ? '.' : style === 'matrix' ? ';' : '';
  if (Array.isArray(value)) {
    const items = value.map((v) => encode(scalarText(v)));
    if (style === 'matrix') return explode ? items.map((v) => `;${encode(name)}=${v}`).join('') : `;${encode(name)}=${items.join(',')}`;
    return prefix + items.join(explode && style === 'label' ? '.' : ',');
  }
  if (isObject(value)) {
    const pairs = entriesOf(value).map(([k, v]) => [encode(k), encode(scalarText(v))]);
    if (explode) return prefix + pairs.map(([k, v]) => `${k}=${v}`).join(style === 'simple' ? ',' : prefix);
    const flat = pairs.flat().join(',');
    return style === 'matrix' ? `;${encode(name)}=${flat}` : prefix + flat;
  }
  const text = encode(scalarText(value));
  if (style === 'matrix') return text === '' ? `;${encode(name)}` : `;${encode(name)}=${text}`;
  return prefix + text;
}
