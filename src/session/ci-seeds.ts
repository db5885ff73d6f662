// What a CI seed (SCHOOL_REFRESH_TOKEN) can serve, said where a seed is minted (`token --for-ci`)
// and where one is refused: a server that rotates refresh tokens spends a seed at its first use,
// so one seed serves one job at a time, and of parallel jobs sharing it all fail but one.
import { EXAMPLE_BASE_URL, loginCommandText, placeholder, shellWord } from '../util/login-command.js';

const SEED_PER_JOB = `give each job its own seed (one \`${loginCommandText({ options: [['--profile', placeholder('<ci-job>')]] })}\` and \`school token --profile <ci-job> --for-ci\` per job)`;
const CONFIDENTIAL_SEED = `mint the seed with \`${loginCommandText({ options: ['--confidential'] })}\` where the server does not rotate a confidential client's refresh tokens`;

/** The ways to run jobs in parallel, as a clause after "to run jobs in parallel, ". */
const PARALLEL_JOBS = `${SEED_PER_JOB}, or ${CONFIDENTIAL_SEED}`;

/** Said on stderr when `token --for-ci` hands over the seed of a public or a confidential client. */
export function seedNotice(confidential: boolean): string {
  if (confidential) {
    return (
      "Parallel jobs: this seed serves several jobs at once only where the server does not rotate a confidential client's refresh tokens; " +
      `where it does, it serves one job at a time, so ${SEED_PER_JOB}.\n`
    );
  }
  return (
    "Parallel jobs: a public client's seed rotates where the server rotates refresh tokens (most do for public clients), so it serves one job at a time and the other jobs running with it at once fail. " +
    `To run jobs in parallel, ${PARALLEL_JOBS}.\n`
  );
}

/**
 * The two commands, run at a desk, that mint a seed for a job: a login to a profile of its own
 * (its own base URL, its own scopes where given) and the hand-over of that profile. One per line.
 */
export function seedCommands(baseUrl: string | undefined, profile = 'ci-job'): string {
  return `${loginCommandText({ baseUrl: baseUrl ?? EXAMPLE_BASE_URL, profile })}\nschool token --profile ${shellWord(profile)} --for-ci`;
}

/**
 * The hint of a job whose client the server no longer knows (`invalid_client`): the seed is fine
 * but its client registration is gone, so only a new seed (with a new client) serves again.
 */
export function goneClientHint(baseUrl: string): string {
  return (
    'The server no longer knows the client in SCHOOL_CLIENT_ID: its registration is gone (deleted at the server, or by a logout of the last profile that used it where it was not recorded as handed to CI). ' +
    `Restoring a cache will not help: make a new seed at a desk and replace the job's SCHOOL_CLIENT_ID and SCHOOL_REFRESH_TOKEN (and SCHOOL_CLIENT_SECRET) secrets:\n${seedCommands(baseUrl)}`
  );
}

/** The hint of a job whose seed the server refused with `invalid_grant`. */
export const SPENT_SEED_HINT =
  'The seed in SCHOOL_REFRESH_TOKEN is spent or revoked; another job running with the same seed may have spent it (a rotating seed serves one job at a time). ' +
  `To run jobs in parallel, ${PARALLEL_JOBS}; for a single job, restore its cached SCHOOL_CONFIG_DIR, or mint a new seed.`;
