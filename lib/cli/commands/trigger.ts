import { runIdRule } from '../../engine/index.js';
import { cmdTrigger } from '../aws-ops.js';
import { COMMON } from '../options.js';
import { OptionError } from '../registry.js';
import { stackCommand } from './stack.js';

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
    conf: COMMON.conf, 'logical-date': COMMON.logicalDate,
    'run-id': { type: 'string', value: 'ID', help: 'the run id (default manual__<logical date>): 1-250 of A-Z a-z 0-9 _ . ~ : + -, as Airflow', parse: runIdText },
  },
  op: (t, [dag], o) => cmdTrigger(t.ports, dag!, o.conf, t.out, o['logical-date'], o['run-id']),
});
