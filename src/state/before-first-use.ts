import type { StateRepository } from './repository.js';

/** The repository, with `before` run once before its first use (a migration, on Windows). */
export function beforeFirstUse(state: StateRepository, before: () => Promise<void>): StateRepository {
  let done: Promise<void> | undefined;
  const ready = () => (done ??= before().catch(() => undefined));
  return new Proxy(state, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await ready();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
