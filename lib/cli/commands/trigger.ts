import { runIdRule } from '../../engine/index.js';
import { COMMON, isoDate, jsonObject } from '../options.js';
import { OptionError } from '../registry.js';
import { checked, stackCommand } from './stack.js';

/** The engine's run-id grammar (Airflow's allowed_run_id_pattern), checked before anything is sent. */
function runIdText(text: string): string {
  const rule = runIdRule(text, 'manual');
  if (rule) throw new OptionError(`is not a valid run id: ${rule}`);
  return text;
}

export const trigger = stackCommand({
  words: ['trigger'], args: [{ name: 'dag' }],
  summary: 'start a run of a DAG now',
  options: {
    conf: { ...COMMON.conf, parse: checked(jsonObject) }, 'logical-date': { ...COMMON.logicalDate, parse: checked(isoDate) },
    'run-id': { type: 'string', value: 'ID', help: 'the run id (default manual__<logical date>): 1-250 of A-Z a-z 0-9 _ . ~ : + -, as Airflow', parse: runIdText },
  },
});
