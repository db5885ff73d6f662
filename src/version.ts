// Replaced at build time with the version in package.json; absent when the sources run directly.
declare const __SCHOOL_VERSION__: string;

export const VERSION: string = typeof __SCHOOL_VERSION__ === 'undefined' ? '0.0.0-dev' : __SCHOOL_VERSION__;
