/**
 * Assets in a DAG's graph (Airflow 3's graph view shows them too): a node per asset the DAG
 * names, with an edge from each schedule asset to the DAG's first tasks, from each task to
 * its outlets, and from each inlet to its task. Node ids are `asset:<uri>`.
 */
import { conditionUris } from '../engine/index.js';
import type { DagSpec } from '../engine/index.js';

export interface StructureLike {
  nodes: { id: string; label: string; type: string; operator: string; groups: string[] }[];
  edges: { source_id: string; target_id: string }[];
}

/** The DAG's structure with its assets added. */
export function withAssetNodes<T extends StructureLike>(spec: DagSpec, base: T): T {
  if (!spec.assets?.length) return base;
  const id = (uri: string) => `asset:${uri}`;
  const names = new Map(spec.assets.map((a) => [a.uri, a.name]));
  const nodes = [...base.nodes];
  const edges = [...base.edges];
  const seen = new Set(edges.map((e) => `${e.source_id}\u0000${e.target_id}`));
  const edge = (source_id: string, target_id: string) => {
    const k = `${source_id}\u0000${target_id}`;
    if (!seen.has(k)) edges.push({ source_id, target_id }), seen.add(k);
  };
  for (const a of spec.assets) nodes.push({ id: id(a.uri), label: names.get(a.uri) ?? a.uri, type: 'asset', operator: 'asset', groups: [] });
  const roots = spec.tasks.filter((t) => t.upstream.length === 0).map((t) => t.taskId);
  for (const uri of spec.assetSchedule ? conditionUris(spec.assetSchedule) : []) for (const r of roots) edge(id(uri), r);
  for (const t of spec.tasks) {
    for (const uri of t.outlets ?? []) edge(t.taskId, id(uri));
    for (const uri of t.inlets ?? []) edge(id(uri), t.taskId);
  }
  return { ...base, nodes, edges };
}
