import { cmdInit } from '../init.js';
import type { Command } from '../registry.js';

export const init: Command = {
  words: ['init'], args: [{ name: 'dir' }], group: 'local',
  summary: 'create a project: DAGs, tests (airless/testing), a CDK app, tsconfig',
  details: 'Existing files are kept; an existing package.json is merged (its entries win).',
  options: {
    airless: { type: 'string', value: 'SPEC', help: 'dependency spec for airless in package.json (default ^<this version>, or what package.json has)' },
  },
  run: ([dir], o) => cmdInit(dir, { airless: o.airless }),
};
