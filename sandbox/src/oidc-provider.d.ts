// oidc-provider publishes no type declarations; the sandbox uses a small, loosely typed
// surface of it, declared here so that the rest of the code type-checks.
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  export const errors: Record<string, Any>;
  export class Provider {
    constructor(issuer: string, configuration?: Record<string, Any>);
    [key: string]: Any;
  }
  export default Provider;
}
