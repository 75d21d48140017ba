/**
 * Airflow 3.4's TypeScript SDK surface on Airless (issue 23 §3): the example DAG as Airless
 * reads it, its runs down each side of its condition and branch with the task client, and
 * what is refused (naming the DAG and the task; the build adds the file). The real build,
 * type-check and isolation threads: test/e2e/typed-build.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Bundle, Dag, TaskHandler, getClient, getContext, withArgList, withArgNames } from 'apache-airflow-ts-sdk';
import { InvalidDagError, type Connection, type SecretsSource } from '../../lib/engine/index.js';
import { DEFINITION } from '../../lib/sdk/airflow-ts-sdk/dag.js';
import { triggerOptions } from '../../lib/sdk/airflow-ts-sdk/trigger.js';
import { dag as orders } from '../../examples/airflow-ts-sdk/orders.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';
import { edges } from '../helpers/dag-spec.js';

const def = (d: Dag) => d[DEFINITION]();
const spec = (d: Dag, id: string) => def(d).spec.tasks.find((t) => t.taskId === id)!;

function secrets(vars: Record<string, string>, conns: Record<string, Connection> = {}): SecretsSource {
  return { variable: async (k) => vars[k], connection: async (c) => conns[c] };
}

async function run(d: Dag, vars: Record<string, string> = {}, conns: Record<string, Connection> = {}) {
  const { rt } = await makeRuntime([def(d)], { secrets: secrets(vars, conns) });
  const r = await runOnce(rt, d.dagId);
  const xcom = (taskId: string, key = 'return_value') => rt.ports.store.getXcom({ dagId: d.dagId, runId: r.run.runId, taskId, key });
  return { ...r, xcom };
}

/** The InvalidDagError that declaring or reading `build()`'s Dag throws. */
function refusal(build: () => Dag | void): string {
  try {
    const d = build();
    if (d) def(d);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidDagError);
    return (e as Error).message;
  }
  throw new Error('expected an InvalidDagError');
}

describe('the example DAG as Airless reads it', () => {
  it('maps groups, inputs, edges, the condition and the branch, and the options', () => {
    const d = def(orders).spec;
    expect(d).toMatchObject({ dagId: 'ts_sdk_orders', schedule: { kind: 'cron' }, catchup: false, maxActiveRuns: 1, tags: ['airflow-ts-sdk', 'example'] });
    expect(d.tasks.map((t) => t.taskId).sort()).toEqual([
      'cleanup', 'extract.eu', 'extract.us', 'has_orders', 'load', 'pick_cadence', 'publish_daily', 'publish_weekly', 'report_empty', 'summarize',
    ]);
    expect(spec(orders, 'extract.eu').group).toBe('extract');
    expect(spec(orders, 'extract.us')).toMatchObject({ retries: 2, retryDelayMs: 30_000 });
    expect(spec(orders, 'summarize').inputs).toEqual({ eu: { task: 'extract.eu' }, us: { task: 'extract.us' } });
    expect(spec(orders, 'has_orders').kind).toBe('branch');
    expect(spec(orders, 'pick_cadence').kind).toBe('branch');
    expect(spec(orders, 'cleanup').triggerRule).toBe('all_done');
    expect(edges(def(orders))).toEqual([
      'extract.eu>pick_cadence', 'extract.eu>summarize', 'extract.us>pick_cadence', 'extract.us>summarize',
      'has_orders>load', 'has_orders>report_empty', 'load>cleanup', 'pick_cadence>publish_daily', 'pick_cadence>publish_weekly',
      'publish_daily>cleanup', 'publish_weekly>cleanup', 'report_empty>cleanup', 'summarize>has_orders',
    ]);
  });

  it('runs the "then" side and the default case: getVariable falls back, setXCom/getXCom pass a value, no connection', async () => {
    const r = await run(orders);
    expect(r.run.state).toBe('success');
    expect(r.states).toMatchObject({ load: 'success', report_empty: 'skipped', publish_daily: 'success', publish_weekly: 'skipped', cleanup: 'success' });
    expect(await r.xcom('summarize', 'orders_total')).toBe(15);
    expect(await r.xcom('load')).toEqual({ loaded: 15 });
    expect(await r.xcom('cleanup')).toEqual({ warehouse: 'no connection ts_sdk_warehouse' });
    expect(await r.xcom('publish_daily')).toEqual({ cadence: 'daily', run: r.run.runId });
  });

  it('runs the "else" side and the other case from variables, and reads a connection', async () => {
    const r = await run(orders, { ts_sdk_eu_orders: '0', ts_sdk_us_orders: '0', ts_sdk_cadence: 'weekly' }, {
      ts_sdk_warehouse: { connId: 'ts_sdk_warehouse', connType: 'postgres', host: 'db.example', extra: {} },
    });
    expect(r.run.state).toBe('success');
    expect(r.states).toMatchObject({ load: 'skipped', report_empty: 'success', publish_daily: 'skipped', publish_weekly: 'success', cleanup: 'success' });
    expect(await r.xcom('cleanup')).toEqual({ warehouse: 'db.example' });
  });
});

describe('the task client and context', () => {
  it('maps getConnection, getXCom of a task and of a mapped-free run, and refuses what Airless does not do', async () => {
    const d = new Dag('client_calls', {});
    const a = d.task('a', async () => {
      await getClient().setXCom({ key: 'k', value: { n: 1 } });
      return 'a-value';
    });
    const b = d.task('b', async () => {
      const c = getClient();
      const conn = await c.getConnection('wh');
      const refusals: string[] = [];
      for (const f of [
        () => (c.setVariable as unknown as () => void)(),
        () => c.getXCom({ key: 'k', taskId: 'a', runId: 'another' }),
        () => c.setXCom({ key: 'k', value: 1, taskId: 'a' }),
        () => c.getVariableOrThrow('missing'),
      ]) {
        try {
          await f();
        } catch (e) {
          refusals.push(`${(e as Error).name}: ${(e as Error).message}`);
        }
      }
      return {
        ctx: getContext().mapIndex,
        missingVar: await c.getVariable('missing'),
        conn,
        missingConn: await c.getConnection('nope'),
        k: await c.getXCom({ key: 'k', taskId: 'a' }),
        a: await c.getXCom({ key: 'return_value', taskId: 'a' }),
        refusals,
      };
    });
    a().before(b());
    const r = await run(d, {}, { wh: { connId: 'wh', connType: 'postgres', host: 'h', port: 5432, login: 'u', password: 'p', schema: 's', extra: { sslmode: 'require' } } });
    expect(r.run.state).toBe('success');
    expect(await r.xcom('b')).toEqual({
      ctx: -1,
      missingVar: null,
      conn: { id: 'wh', type: 'postgres', host: 'h', schema: 's', login: 'u', password: 'p', port: 5432, extra: '{"sslmode":"require"}' },
      missingConn: null,
      k: { n: 1 },
      a: 'a-value',
      refusals: [
        'Error: setVariable: Airless tasks read variables but do not write them; set them with `airless variables set KEY VALUE` (or SSM), or pass the value to the next task as an output',
        'Error: getXCom: Airless reads and writes XComs within the task\'s own run (dag client_calls, run ' + r.run.runId + ')',
        "Error: setXCom: a task writes its own XComs, not task a's",
        'VariableNotFoundError: Variable not found: missing',
      ],
    });
  });

  it('getContext and getClient outside a handler throw', () => {
    expect(() => getContext()).toThrow(/getContext\(\) is only available inside a task handler/);
    expect(() => getClient()).toThrow(/getClient\(\) is only available inside a task handler/);
  });

  it('a decider that returns something else fails its task in one line', async () => {
    const d = new Dag('bad_decider', {});
    const yes = d.task('yes', async () => 1)();
    const no = d.task('no', async () => 2)();
    const cond = d.task('cond', async () => 'yes' as unknown as boolean)();
    d.if(cond).then(yes).else(no);
    const r = await run(d);
    expect(r.states.cond).toBe('failed');
    expect(r.tasks.cond!.error).toBe('Error: condition "cond" returned the string "yes" rather than a boolean, so there is no branch to take');
  });
});

describe('refused, naming the DAG and the task', () => {
  it('a task never called, or called twice', () => {
    expect(refusal(() => {
      const d = new Dag('uncalled', {});
      d.task('t', async () => 1);
      return d;
    })).toBe('dag uncalled: task t: is never called, so it has no place in the Dag: call the factory dag.task(...) returned');
    expect(refusal(() => {
      const d = new Dag('twice', {});
      const t = d.task('t', async () => 1);
      t();
      t();
    })).toBe('dag twice: task t: was already called: a task holds one place in a Dag, so call it once and reuse the reference');
  });

  it('options Airless cannot honour, and unknown ones', () => {
    expect(refusal(() => new Dag('ff', { failFast: true }))).toBe('dag ff: option "failFast" is not supported on Airless: a failed task does not stop its run\'s other tasks');
    expect(refusal(() => new Dag('typo', { schedul: '@daily' } as never))).toBe('dag typo: unknown option "schedul" in the spec of the Dag');
    expect(refusal(() => {
      new Dag('wfd', {}).task('t', async () => 1, { waitForDownstream: true });
    })).toBe('dag wfd: task t: option "waitForDownstream" is not supported on Airless: not implemented (dependsOnPast is)');
  });

  it('handlers of Python Dags, withArgList, and a reference hidden in a literal', () => {
    expect(() => new TaskHandler('py_dag', 'extract', async () => 1)).toThrow(/TaskHandler\("py_dag", "extract"\) implements a task of a Dag declared in Python; Airless runs no Python/);
    expect(() => withArgList(1, 2)).toThrow(/withArgList\(\.\.\.\) is not supported on Airless: name the inputs/);
    const h = async () => 1;
    expect(withArgNames({}, h)).toBe(h);
    expect(new Bundle().register()).toBeInstanceOf(Bundle);
    expect(refusal(() => {
      const d = new Dag('nested', {});
      const a = d.task('a', async () => 1)();
      d.task('b', async (_x: { v: unknown[] }) => 1)({ v: [a] as never });
    })).toBe('dag nested: task b: input "v" holds a reference to "a" inside a literal value, which draws no edge: pass the reference as the input itself');
  });

  it('another Dag\'s reference, and a decider\'s value passed on', () => {
    const other = new Dag('other', {});
    const o = other.task('o', async () => 1)();
    expect(refusal(() => {
      const d = new Dag('mine', {});
      d.task('b', async (_x: { v: number }) => 1)({ v: o });
    })).toBe('dag mine: task b: input "v" was given "o" of Dag "other", which this Dag did not hand out: an edge joins two nodes of one Dag');
    expect(refusal(() => {
      const d = new Dag('passed', {});
      const gate = d.task('gate', async () => true)();
      d.if(gate).then(d.task('then', async () => 1)());
      d.task('reads', async (_x: { g: boolean }) => 1)({ g: gate });
      return d;
    })).toMatch(/^dag passed: task reads: input "g" is the value of "gate", which decides a branch/);
  });

  it('a condition without a branch, a switch without cases', () => {
    expect(refusal(() => {
      const d = new Dag('no_then', {});
      d.if(d.task('c', async () => true)());
      return d;
    })).toBe('dag no_then: task c: condition "c" names no branch: give it one with dag.if(condition).then(task)');
    expect(refusal(() => {
      const d = new Dag('no_cases', {});
      const t = d.task('t', async () => 1)();
      d.switch(d.task('s', async () => t)());
      return d;
    })).toBe('dag no_cases: task s: branch "s" has no cases: dag.switch(decider).case(task)');
  });

  it('triggerDagRun: its options mapped onto Airless\'s operator, and a clear refusal while that operator is absent', () => {
    const fail = (m: string): never => {
      throw new Error(m);
    };
    expect(triggerOptions({ dagId: 't', conf: { a: 1 }, waitForCompletion: true, allowedStates: ['success'], failedStates: ['failed'], resetDagRun: true, pokeInterval: 30, deferrable: true }, fail))
      .toEqual({ dagId: 't', conf: { a: 1 }, waitForCompletion: true, allowedStates: ['success'], failedStates: ['failed'], resetDagRun: true });
    expect(() => triggerOptions({ dagId: 't', runId: 'r' }, fail)).toThrow('triggerDagRun(...) option "runId" is not supported on Airless: the triggered run gets its own manual run id');
    expect(() => triggerOptions({ dagId: 't', allowedStates: ['done' as never] }, fail)).toThrow(/"allowedStates" must be a list of run states/);
    const message = refusal(() => {
      const d = new Dag('triggers', {});
      d.triggerDagRun({ taskId: 'go', dagId: 'target', conf: { k: 'v' } }).after(d.task('first', async () => 1)());
      return d;
    });
    expect(message).toMatch(/^dag triggers: task go: dag\.triggerDagRun\(\.\.\.\) maps onto Airless's triggerDagRun operator/);
  });
});
