/** The environment as the process sees it (or as a test hands it in). */
export type Env = Record<string, string | undefined>;
