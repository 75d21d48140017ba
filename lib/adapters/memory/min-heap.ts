/**
 * A binary min-heap ordered by `(at, key)`, used by the memory store to find due
 * items without scanning every stored record.
 *
 * @example
 * const h = new MinHeap();
 * h.push({ at: 5, key: 'a' });
 * h.peek(); // { at: 5, key: 'a' }
 */
export interface HeapEntry {
  at: number;
  key: string;
}

function less(a: HeapEntry, b: HeapEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.key < b.key);
}

export class MinHeap {
  private items: HeapEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  push(e: HeapEntry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): HeapEntry | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }

  /** Replaces the content (used to drop stale entries in one pass). */
  rebuild(entries: Iterable<HeapEntry>): void {
    this.items = [];
    for (const e of entries) this.push(e);
  }
}
