/**
 * The graph of a DAG, laid out by dagre (a maintained layered-graph layout, the same
 * family Airflow's own graph view uses) and drawn as SVG. Task groups are boxes around
 * their members; node borders and fills show the selected run's states.
 */
import { Graph, layout } from '@dagrejs/dagre';
import { color, esc } from './dom.js';
import { LARGE_GRAPH, layeredLayout } from './layered.js';

export interface Structure {
  nodes: { id: string; label: string; operator: string; groups: string[] }[];
  edges: { source_id: string; target_id: string }[];
}

export interface Placed {
  width: number;
  height: number;
  nodes: Map<string, { x: number; y: number; w: number; h: number }>;
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
}

const NODE_W = 150;
const NODE_H = 32;

/** Lays the DAG out left to right: dagre up to {@link LARGE_GRAPH} nodes, a linear-time layering beyond. */
export function placeGraph(s: Structure): Placed {
  if (s.nodes.length > LARGE_GRAPH) return layeredLayout(s, { w: NODE_W, h: NODE_H, gapX: 40, gapY: 12 });
  const g = new Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 12, ranksep: 40, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of s.nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  for (const e of s.edges) g.setEdge(e.source_id, e.target_id);
  layout(g);
  const nodes = new Map<string, { x: number; y: number; w: number; h: number }>();
  for (const id of g.nodes()) {
    const n = g.node(id) as { x: number; y: number; width: number; height: number };
    nodes.set(id, { x: n.x, y: n.y, w: n.width, h: n.height });
  }
  const edges = g.edges().map((e: { v: string; w: string }) => ({ from: e.v, to: e.w, points: ((g.edge(e) as { points?: { x: number; y: number }[] }).points ?? []) }));
  const gl = g.graph() as { width?: number; height?: number };
  return { width: gl.width ?? 0, height: gl.height ?? 0, nodes, edges };
}

/** SVG of a placed graph; `states` maps task id to its state in the selected run. */
export function graphSvg(s: Structure, placed: Placed, states: Map<string, string | null>, selected?: string): string {
  const boxes = new Map<string, { x0: number; y0: number; x1: number; y1: number; depth: number }>();
  for (const n of s.nodes) {
    const p = placed.nodes.get(n.id)!;
    n.groups.forEach((g, depth) => {
      const pad = 8 + (n.groups.length - depth - 1) * 6;
      const b = boxes.get(g) ?? { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, depth };
      b.x0 = Math.min(b.x0, p.x - p.w / 2 - pad);
      b.y0 = Math.min(b.y0, p.y - p.h / 2 - pad - 12);
      b.x1 = Math.max(b.x1, p.x + p.w / 2 + pad);
      b.y1 = Math.max(b.y1, p.y + p.h / 2 + pad);
      boxes.set(g, b);
    });
  }
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${placed.width}" height="${placed.height}" data-testid="graph">`;
  out += '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#888"/></marker></defs>';
  for (const [g, b] of [...boxes].sort((x, y) => x[1].depth - y[1].depth)) {
    out += `<g class="group"><rect x="${b.x0}" y="${b.y0}" width="${b.x1 - b.x0}" height="${b.y1 - b.y0}" rx="6" fill="rgba(0,90,200,0.05)" stroke="#7aa7d9" stroke-dasharray="4 3"/><text x="${b.x0 + 6}" y="${b.y0 + 12}" class="glabel">${esc(g)}</text></g>`;
  }
  for (const e of placed.edges) {
    if (!e.points.length) continue;
    out += `<polyline points="${e.points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}" fill="none" stroke="#888" marker-end="url(#arrow)"/>`;
  }
  for (const n of s.nodes) {
    const p = placed.nodes.get(n.id)!;
    const st = states.get(n.id) ?? null;
    out += `<g class="node${n.id === selected ? ' sel' : ''}${n.operator === 'asset' ? ' asset' : ''}" data-task="${esc(n.id)}" data-state="${esc(st ?? 'none')}"><rect x="${p.x - p.w / 2}" y="${p.y - p.h / 2}" width="${p.w}" height="${p.h}" rx="4" fill="#fff" stroke="${st ? color(st) : '#999'}" stroke-width="${st ? 3 : 1}"/>`;
    out += `<rect x="${p.x - p.w / 2 + 4}" y="${p.y - 5}" width="10" height="10" fill="${color(st)}" stroke="#999" stroke-width="0.5"/>`;
    out += `<text x="${p.x - p.w / 2 + 20}" y="${p.y + 4}">${esc(n.label.length > 18 ? `${n.label.slice(0, 17)}…` : n.label)}</text><title>${esc(`${n.id} (${n.operator}) ${st ?? 'no status'}`)}</title></g>`;
  }
  return `${out}</svg>`;
}
