// A small in-memory storage adapter for oidc-provider. The library ships one, but it
// announces itself with a warning on every start and shares its store across provider
// instances; this one keeps each sandbox's artifacts to itself.

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string };

interface Entry {
  payload: Payload;
  expiresAt?: number;
}

export function memoryAdapterFactory() {
  const store = new Map<string, Entry>();
  const byGrant = new Map<string, Set<string>>();
  const byUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();

  return class MemoryAdapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return `${this.model}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number) {
      const key = this.key(id);
      store.set(key, {
        payload: structuredClone(payload),
        expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined,
      });
      if (payload.grantId) {
        let keys = byGrant.get(payload.grantId);
        if (!keys) byGrant.set(payload.grantId, (keys = new Set()));
        keys.add(key);
      }
      if (payload.uid) byUid.set(payload.uid, id);
      if (payload.userCode) byUserCode.set(payload.userCode, id);
    }

    async find(id: string) {
      const key = this.key(id);
      const entry = store.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
        store.delete(key);
        return undefined;
      }
      return structuredClone(entry.payload);
    }

    async findByUid(uid: string) {
      const id = byUid.get(uid);
      return id === undefined ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string) {
      const id = byUserCode.get(userCode);
      return id === undefined ? undefined : this.find(id);
    }

    async consume(id: string) {
      const entry = store.get(this.key(id));
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string) {
      store.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string) {
      for (const key of byGrant.get(grantId) ?? []) store.delete(key);
      byGrant.delete(grantId);
    }
  };
}
