import type { Deps } from '../../deps.js';
import { type GlobalOptions, checkProfileName } from '../../options.js';
import type { RequestShape } from '../../api/request-shape.js';
import { isPlainMediaType, isPlainPath, isPlainScope } from '../../util/plain-name.js';
import { cachedDescriptionDocument, loadApiDescription } from '../../session/api-description.js';
import { descriptionCacheKey } from '../../session/description-source.js';
import type { Target } from '../../session/target.js';
import { BUILTIN_FLAGS, operationFlags } from '../api-own-flags.js';
import { commandTarget, defineCommand } from '../command.js';

export interface CompleteOptions extends GlobalOptions {
  kind: string;
  /** For `api-flags <operation>`, `api-values <operation> <flag>` and `api-media-types <operation>`. */
  argv?: string[];
}

/** A value completion may insert as it is: nothing a shell or a terminal would act on. */
const PLAIN_VALUE = /^[A-Za-z0-9_.:/@%+=,-]{1,100}$/;

/**
 * The words `--content-type` takes for the media types an operation offers, in its order, as
 * completion may insert them: each type without its parameters (`text/csv` for `text/csv;
 * header=present`: --content-type picks an offered type by that too), once; only plain ones, never
 * a wildcard or anything a shell or a terminal would act on.
 */
function mediaTypeWords(shape: Pick<RequestShape, 'media'>): string[] {
  const bare = shape.media.map((m) => m.type.split(';')[0].trim());
  return [...new Set(bare.filter(isPlainMediaType))];
}

/** `school api` completions: operation names, an operation's flags, a flag's values, its media types. From the cached index only. */
async function apiCandidates(deps: Deps, target: Target & { baseUrl: string }, kind: string, args: readonly string[]): Promise<string[]> {
  const loaded = await loadApiDescription(deps, target.baseUrl, { offline: true, target });
  if (kind === 'api-operations') return loaded.index.operations.map((op) => op.command);
  const entry = loaded.index.operations.find((op) => op.command === args[0]);
  const detail = entry ? await loaded.detail(entry) : undefined;
  if (kind === 'api-media-types') return detail ? mediaTypeWords(detail.request) : [];
  const flags = detail ? operationFlags(detail.fields) : [];
  if (kind === 'api-flags') return [...flags.map((f) => `--${f.flag}`), ...Object.entries(BUILTIN_FLAGS).flatMap(([name, f]) => [`--${name}`, ...(f.short ? [`-${f.short}`] : [])])];
  const name = (args[1] ?? '').replace(/^--/, '').split('=')[0];
  if (name === 'format') return ['json', 'table'];
  const flag = flags.find((f) => f.flag === name);
  if (!flag) return [];
  if (flag.field.enum) return flag.field.enum.map(String).filter((v) => PLAIN_VALUE.test(v));
  return flag.field.type === 'boolean' ? ['true', 'false'] : [];
}

function isPlainProfile(name: string): boolean {
  try {
    return checkProfileName(name) === name;
  } catch {
    return false;
  }
}

/**
 * A templated path (`/api/courses/{id}`) is no path to call: it is offered up to its first
 * parameter (`/api/courses/`), for the person to type the value.
 */
function untemplated(path: string): string {
  const brace = path.indexOf('{');
  return brace === -1 ? path : path.slice(0, brace);
}

/**
 * Candidates for shell completion, one a line, from local files only: completion must never
 * wait on the network.
 */
async function run(deps: Deps, opts: CompleteOptions): Promise<void> {
  let out: string[] = [];
  try {
    const profiles = await deps.state.profiles();
    // A malformed --base-url on the line being typed is no reason to offer nothing.
    const target = await commandTarget(deps, opts).catch(() => undefined);
    const baseUrl = target?.baseUrl;
    // Only plain names: a completion is inserted into a command line the user is about to run.
    if (opts.kind === 'profiles') out = Object.keys(profiles).filter(isPlainProfile).sort();
    else if (opts.kind === 'scopes') out = (await deps.state.cachedScopes(baseUrl)).filter(isPlainScope);
    else if (opts.kind === 'paths' && baseUrl) {
      const doc = (await cachedDescriptionDocument(deps, descriptionCacheKey(baseUrl, target?.description))) as { paths?: unknown } | undefined;
      const paths = Object.keys(doc?.paths && typeof doc.paths === 'object' ? doc.paths : {});
      out = [...new Set(paths.map(untemplated))].filter((p) => p.length > 1 && isPlainPath(p)).sort();
    } else if (opts.kind.startsWith('api-') && baseUrl) out = await apiCandidates(deps, { ...target, baseUrl } as Target & { baseUrl: string }, opts.kind, opts.argv ?? []);
  } catch {
    out = []; // a broken config must not break the user's shell
  }
  if (out.length) deps.io.out.write(`${out.join('\n')}\n`);
}

// Used by the completion scripts; hidden from help.
export const completeCommand = defineCommand<CompleteOptions>({ name: '__complete', run });
