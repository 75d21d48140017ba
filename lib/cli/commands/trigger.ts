import { COMMON, isoDate, jsonObject } from '../options.js';
import { checked, stackCommand } from './stack.js';

export const trigger = stackCommand({
  words: ['trigger'], args: [{ name: 'dag' }],
  summary: 'start a run of a DAG now',
  options: { conf: { ...COMMON.conf, parse: checked(jsonObject) }, 'logical-date': { ...COMMON.logicalDate, parse: checked(isoDate) } },
});
