/**
 * A linear-time layered layout for large DAGs. dagre's network-simplex ranking and
 * crossing reduction take seconds past a few hundred nodes (8 s for 1,000 measured by
 * bench/ui.ts), so beyond {@link LARGE_GRAPH} nodes the graph view uses this instead:
 * rank = longest path from a root, order within a rank by the mean position of the
 * upstream nodes (one barycentre sweep), straight edges. Crossings are not minimised.
 */
import type { Placed, Structure } from './graph.js';

export const LARGE_GRAPH = 300;

export function layeredLayout(s: Structure, node: { w: number; h: number; gapX: number; gapY: number }): Placed {
  const ups = new Map<string, string[]>(s.nodes.map((n) => [n.id, []]));
  const downs = new Map<string, string[]>(s.nodes.map((n) => [n.id, []]));
  for (const e of s.edges) {
    ups.get(e.target_id)?.push(e.source_id);
    downs.get(e.source_id)?.push(e.target_id);
  }
  // Kahn's order gives every node after its upstreams; rank is the longest path to it.
  const indeg = new Map(s.nodes.map((n) => [n.id, ups.get(n.id)!.length]));
  const queue = s.nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  const rank = new Map<string, number>();
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i];
    rank.set(id, Math.max(0, ...ups.get(id)!.map((u) => (rank.get(u) ?? 0) + 1)));
    for (const d of downs.get(id)!) {
      indeg.set(d, indeg.get(d)! - 1);
      if (indeg.get(d) === 0) queue.push(d);
    }
  }
  const layers: string[][] = [];
  for (const id of queue) (layers[rank.get(id)!] ??= []).push(id);
  const pos = new Map<string, number>();
  for (const layer of layers) {
    const key = (id: string) => {
      const u = ups.get(id)!;
      return u.length ? u.reduce((a, x) => a + (pos.get(x) ?? 0), 0) / u.length : Number.MAX_SAFE_INTEGER;
    };
    const keyed = layer.map((id, i) => ({ id, k: key(id), i }));
    keyed.sort((a, b) => a.k - b.k || a.i - b.i);
    keyed.forEach((x, i) => pos.set(x.id, i));
  }
  const tallest = Math.max(1, ...layers.map((l) => l.length));
  const nodes = new Map<string, { x: number; y: number; w: number; h: number }>();
  layers.forEach((layer, r) => {
    const offset = ((tallest - layer.length) * (node.h + node.gapY)) / 2;
    for (const id of layer) {
      nodes.set(id, { x: 16 + r * (node.w + node.gapX) + node.w / 2, y: 16 + offset + pos.get(id)! * (node.h + node.gapY) + node.h / 2, w: node.w, h: node.h });
    }
  });
  const edges = s.edges.filter((e) => nodes.has(e.source_id) && nodes.has(e.target_id)).map((e) => {
    const a = nodes.get(e.source_id)!;
    const b = nodes.get(e.target_id)!;
    return { from: e.source_id, to: e.target_id, points: [{ x: a.x + a.w / 2, y: a.y }, { x: b.x - b.w / 2, y: b.y }] };
  });
  return {
    width: 32 + layers.length * (node.w + node.gapX),
    height: 32 + tallest * (node.h + node.gapY),
    nodes,
    edges,
  };
}
