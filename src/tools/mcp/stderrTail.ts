/** The last lines a server wrote to stderr, each capped, kept for crash reports. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines: number,
    private readonly maxLineChars: number,
    private readonly onLine: (line: string) => void,
  ) {}

  append(chunk: string): void {
    const text = this.partial + chunk;
    const pieces = text.split(/\r?\n/);
    this.partial = pieces.pop() ?? '';
    // A line that never ends is still bounded: flush it once it is past the cap.
    if (this.partial.length > this.maxLineChars) {
      pieces.push(this.partial);
      this.partial = '';
    }
    for (const piece of pieces) this.add(piece);
  }

  /** Adds what is left of an unfinished last line. */
  flush(): void {
    if (this.partial) this.add(this.partial);
    this.partial = '';
  }

  recent(): string[] {
    return [...this.lines];
  }

  private add(line: string): void {
    if (line.trim() === '') return;
    const capped = line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}… (${line.length} characters)` : line;
    this.lines.push(capped);
    if (this.lines.length > this.maxLines) this.lines.shift();
    this.onLine(capped);
  }
}
