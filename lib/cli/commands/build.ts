import { cmdBuild } from '../local.js';
import { COMMON } from '../options.js';
import type { Command } from '../registry.js';

export const build: Command = {
  words: ['build'], args: [{ name: 'dir' }], group: 'local',
  summary: 'type-check, validate and bundle DAG files (bundle.mjs + manifest.json)',
  details: 'Writes to .airless/build by default (never collected as DAG files).',
  options: {
    out: { type: 'string', value: 'DIR', help: 'output folder (default .airless/build)' },
    'no-typecheck': COMMON.noTypecheck,
  },
  run: ([dir], o) => cmdBuild(dir, { out: o.out, typecheck: !o['no-typecheck'] }),
};
