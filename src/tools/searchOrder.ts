/**
 * Deterministic order for search results that arrive in any order (ripgrep runs in parallel):
 * paths compared segment by segment, as a sorted walk visits them ("a/b" before "a.txt"), then
 * by line.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // "/" sorts before every other character: a directory's entries come before its siblings.
    if (x === 0x2f) return -1;
    if (y === 0x2f) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The `limit` smallest items seen, in a max-heap: O(log limit) per item, memory bounded by
 * `limit` however many items arrive.
 */
export class SmallestItems<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  get full(): boolean {
    return this.heap.length >= this.limit;
  }

  /** Whether `item` would be kept now (cheap check before building a full item). */
  wouldKeep(item: T): boolean {
    return !this.full || (this.limit > 0 && this.compare(item, this.heap[0]) < 0);
  }

  add(item: T): void {
    const heap = this.heap;
    if (this.limit <= 0) return;
    if (heap.length < this.limit) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (this.compare(item, heap[0]) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** The kept items, smallest first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i], heap[parent]) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < heap.length && this.compare(heap[left], heap[largest]) > 0) largest = left;
      if (right < heap.length && this.compare(heap[right], heap[largest]) > 0) largest = right;
      if (largest === i) return;
      [heap[i], heap[largest]] = [heap[largest], heap[i]];
      i = largest;
    }
  }
}
