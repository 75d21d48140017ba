/**
 * The DAGs of the scheduler benchmark: the three shapes of Airflow 2.0's scheduler
 * benchmark (AIP-15), with trivial tasks so that only orchestration is measured.
 */
import { chain, dag } from '../lib/sdk/index.js';
import type { DagDefinition, TaskFn } from '../lib/sdk/types.js';

/** One shape: the DAGs to register and the runs to trigger (dagId, runId). */
export interface ShapePlan {
  name: string;
  dags: DagDefinition[];
  runs: Array<{ dagId: string; runId: string }>;
  tasks: number;
}

// Returns nothing: no XCom write, so only orchestration is measured (as with Airflow's no-op tasks).
const trivial = async () => undefined;

/**
 * A DAG of `tasks` tasks in one line, each running `body` (a no-op by default).
 *
 * @example
 * linearDag('chain10', 10).spec.tasks.length; // 10
 */
export function linearDag(dagId: string, tasks: number, body: TaskFn = trivial): DagDefinition {
  return dag(dagId, { maxActiveRuns: 10_000 }, ({ task }) => {
    chain(...Array.from({ length: tasks }, (_, i) => task(`t${i}`, body)));
  });
}

/**
 * A DAG of `tasks` tasks as a binary tree from one root: task i feeds 2i+1 and 2i+2.
 *
 * @example
 * treeDag('tree', 10).spec.tasks.find((t) => t.taskId === 't0')?.downstream; // ['t1', 't2']
 */
export function treeDag(dagId: string, tasks: number): DagDefinition {
  return dag(dagId, { maxActiveRuns: 10_000 }, ({ task }) => {
    const handles = Array.from({ length: tasks }, (_, i) => task(`t${i}`, trivial));
    for (let i = 0; i < tasks; i++) {
      const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < tasks).map((k) => handles[k]!);
      if (kids.length > 0) handles[i]!.before(kids);
    }
  });
}

/**
 * A DAG of `tasks` tasks as a binary in-tree: 2i+1 and 2i+2 feed task i, so the leaves run
 * first and the root t0 last. This is the shape of Airflow 2.0's own "binary_tree" perf DAG
 * (`scripts/perf/dags/elastic_dag.py`: `tasks[i].set_downstream(tasks[(i - 1) // 2])`) and
 * of the BullMQ peer's flows (children before their parent).
 *
 * @example
 * inTreeDag('intree', 10).spec.tasks.find((t) => t.taskId === 't0')?.upstream; // ['t1', 't2']
 */
export function inTreeDag(dagId: string, tasks: number): DagDefinition {
  return dag(dagId, { maxActiveRuns: 10_000 }, ({ task }) => {
    const handles = Array.from({ length: tasks }, (_, i) => task(`t${i}`, trivial));
    for (let i = 0; i < tasks; i++) {
      const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < tasks).map((k) => handles[k]!);
      if (kids.length > 0) handles[i]!.after(kids);
    }
  });
}

/**
 * The shapes, scaled by `scale` (1 = the published sizes, 0.1 = `--quick`).
 * Each shape holds about 1,000 × scale task instances.
 *
 * @example
 * shapePlans(1).map((s) => s.tasks); // [1000, 1000, 1000, 1000]
 */
export function shapePlans(scale: number): ShapePlan[] {
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const manyRuns = n(100);
  const longRuns = n(10);
  const files = n(10);
  const chain10 = linearDag('chain10', 10);
  const chain100 = linearDag('chain100', 100);
  const trees = Array.from({ length: files * 10 }, (_, i) => treeDag(`tree_f${Math.floor(i / 10)}_d${i % 10}`, 10));
  const inTrees = Array.from({ length: files * 10 }, (_, i) => inTreeDag(`intree_f${Math.floor(i / 10)}_d${i % 10}`, 10));
  return [
    {
      name: `${manyRuns} runs x 10 linear tasks`,
      dags: [chain10],
      runs: Array.from({ length: manyRuns }, (_, i) => ({ dagId: 'chain10', runId: `r${i}` })),
      tasks: manyRuns * 10,
    },
    {
      name: `${longRuns} runs x 100 linear tasks`,
      dags: [chain100],
      runs: Array.from({ length: longRuns }, (_, i) => ({ dagId: 'chain100', runId: `r${i}` })),
      tasks: longRuns * 100,
    },
    {
      name: `${files} files x 10 DAGs x 10-task binary tree`,
      dags: trees,
      runs: trees.map((d) => ({ dagId: d.spec.dagId, runId: 'r0' })),
      tasks: trees.length * 10,
    },
    {
      name: `${files} files x 10 DAGs x 10-task binary in-tree`,
      dags: inTrees,
      runs: inTrees.map((d) => ({ dagId: d.spec.dagId, runId: 'r0' })),
      tasks: inTrees.length * 10,
    },
  ];
}
