/**
 * `airless assets list|events|emit` (docs/assets.md): on a deployed stack (`--stack`,
 * `--endpoint`), on a running dev (`--dev`), or on a DAG folder alone (`--dir DIR`: list its
 * assets; emit an event and run what it triggers, in process).
 */
import { COMMON, wholeNumber } from '../options.js';
import { OptionError, type Command, type OptionSpec } from '../registry.js';
import type { Target } from '../target.js';
import { DEV_OPTION, ENDPOINT, onTarget } from './stack.js';
import { cmdAssetsEmit, cmdAssetsEvents, cmdAssetsList } from '../assets.js';
import { extraProblem } from '../../engine/index.js';

/** `--extra`, read before anything runs: a JSON object of at most 32 KB. */
function extraObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new OptionError('must be a JSON object');
  }
  if (extraProblem(v)) throw new OptionError(`must be a JSON object of at most 32 KB (${extraProblem(v)})`);
  return v as Record<string, unknown>;
}

const WHERE: Record<string, OptionSpec> = {
  stack: COMMON.stack,
  endpoint: ENDPOINT,
  dev: DEV_OPTION,
  dir: { type: 'string', value: 'DIR', help: 'a DAG folder on its own (no stack, no dev)' },
  json: COMMON.json,
  'no-typecheck': COMMON.noTypecheck,
};

type Op = (t: Target, uri: string | undefined, o: Record<string, any>) => Promise<number>;

function verb(name: string, args: Command['args'], summary: string, details: string, op: Op, options: Record<string, OptionSpec> = {}): Command {
  return {
    words: ['assets', name], args, group: 'stack', summary, details, options: { ...WHERE, ...options },
    async run(a, o, io) {
      if (o.dir !== undefined && !o.dev) {
        const { assetsLocal } = await import('../assets-local.js');
        return assetsLocal(o.dir, [name, ...a], { json: o.json, extra: o.extra, timeWarp: o['time-warp'], typecheck: !o['no-typecheck'] }, io.out);
      }
      return onTarget(o, io, (t) => op(t, a[0], o));
    },
  };
}

export const assetsList = verb('list', [], 'the assets: who produces and consumes them, their watchers and last event',
  'Examples:\n  airless assets list --stack Airless\n  airless assets list --dir dags --json',
  (t, _uri, o) => cmdAssetsList(t.ports, { json: o.json, all: o.all }, t.out),
  { all: { type: 'boolean', help: 'include inactive assets (no registered DAG names them any more)' } });

export const assetsEvents = verb('events', [{ name: 'uri', optional: true }], 'recent asset events, newest first (of one asset, or all)',
  'Examples:\n  airless assets events s3://lake/raw/orders --dev\n  airless assets events --stack Airless --limit 50 --json',
  (t, uri, o) => cmdAssetsEvents(t.ports, uri, { json: o.json, limit: o.limit }, t.out),
  { limit: { type: 'string', value: 'N', help: 'at most N events (1..1000, default 25)', parse: wholeNumber(1, 1000) } });

export const assetsEmit = verb('emit', [{ name: 'uri' }], 'record an asset event (as POST /api/v2/assets/events); the DAGs it satisfies run',
  'With --dir DIR the event is recorded in an embedded runtime of that folder and every run it triggers runs to the end here.\nExamples:\n  airless assets emit s3://lake/raw/orders --extra \'{"rows":12}\' --stack Airless\n  airless assets emit s3://lake/raw/orders --dir dags --time-warp --json',
  (t, uri, o) => cmdAssetsEmit(t.ports, uri!, o.extra ?? {}, { json: o.json }, t.out),
  {
    extra: { type: 'string', value: 'JSON', help: 'the event\'s extra: a JSON object (at most 32 KB)', parse: extraObject },
    'time-warp': { type: 'boolean', help: 'with --dir: a virtual clock' },
  });
