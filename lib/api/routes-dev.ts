/**
 * The dev's control route: `airless <cmd> --dev` sends its command line here, to the
 * same server and token as the REST API, so `airless dev` serves one port. Airless's
 * own namespace (`/api/airless/`), outside Airflow's `/api/v2`: no Airflow client calls it.
 * The dev runs the line through its CLI registry on its own ports (lib/cli/dev.ts); an
 * API server without a dev (`airless ui --stack`) answers 404.
 */
import { HttpError } from './http.js';
import type { Route } from './router.js';

/** What a command line produced on the dev. */
export interface DevCommandResult {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** Runs one `--dev` command line on a running dev. */
export type DevControl = (argv: string[]) => Promise<DevCommandResult>;

/**
 * @example
 * const router = new Router([...apiRoutes(), ...devRoutes()]);
 */
export function devRoutes(): Route[] {
  return [{
    method: 'POST',
    path: '/api/airless/dev/command',
    async handle({ b, body }) {
      if (!b.devControl) throw new HttpError(404, 'path: this server is not an `airless dev`');
      const argv = body.argv;
      if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string')) {
        throw new HttpError(422, 'argv: must be a non-empty array of strings', { loc: ['body', 'argv'], input: argv });
      }
      return b.devControl(argv as string[]);
    },
  }];
}
