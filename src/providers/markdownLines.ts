/**
 * Reads the start of one markdown line, a character at a time, far enough to know its shape:
 * how far it is indented, which container markers open it (block quote `>`, list items `-`, `+`,
 * `*`, `1.`, `1)`), and whether it is a code fence (CommonMark: three or more backticks or
 * tildes; a backtick fence's info string holds no backtick). Each character is looked at once,
 * so reading a stream stays linear; the rest of a line that is no fence is never looked at.
 */

/** The fence characters of a line, when it is a code fence. */
export interface FenceRun {
  char: '`' | '~';
  length: number;
  /** Column of the first fence character. */
  col: number;
  /** The info string trimmed and lower-cased, while short; `undefined` past MAX_INFO_CHARS. */
  info: string | undefined;
  /** Nothing but whitespace follows the fence characters: the line can close a fence. */
  bare: boolean;
}

export interface LineShape {
  blank: boolean;
  /** Columns of whitespace before anything else (a tab goes to the next multiple of four). */
  indent: number;
  /** Block quote markers at the start. */
  quotes: number;
  /** List markers at the start. */
  listMarkers: number;
  /** The first marker, when the line has any. */
  firstMarker: 'quote' | 'list' | undefined;
  /** When the first marker is a list marker: the column where the item's content starts. */
  itemContent: number | undefined;
  /** The first list marker is a number other than 1: such an item cannot interrupt a paragraph. */
  orderedNotOne: boolean;
  /** A list marker with nothing after it (an empty item cannot interrupt a paragraph either). */
  emptyItem: boolean;
  /** Three or more `-`, `*` or `_` and nothing else ("- - -" is a rule, not a list). */
  thematicBreak: boolean;
  fence: FenceRun | undefined;
}

/** Info strings longer than this are never a tool-call tag, so such a line is not held back. */
export const MAX_INFO_CHARS = 64;
/** Fences longer than this never open a tool-call block (text held back stays small). */
export const MAX_CALL_FENCE_CHARS = 64;

type Phase = 'lead' | 'bullet' | 'digits' | 'run' | 'info' | 'plain';

export class LineHead {
  private phase: Phase = 'lead';
  private col = 0;
  private indent = -1;
  private quotes = 0;
  private listMarkers = 0;
  private lastMarkerIsList = false;
  private afterMarker = 0;
  private firstMarker: 'quote' | 'list' | undefined;
  /** Where the first list marker ends, while the whitespace after it is still being read. */
  private firstMarkerEnd = -1;
  private itemContent: number | undefined;
  private number = 0;
  private digits = 0;
  private orderedNotOne = false;
  private char: '`' | '~' = '`';
  private length = 0;
  private fenceCol = 0;
  private info = '';
  private infoChars = 0;
  private bare = true;
  /** The line may still be a thematic break: its character and how many so far. */
  private breakChar = '';
  private breakCount = 0;
  private breakPossible = true;

  /** A new line starts. */
  reset(): void {
    this.phase = 'lead';
    this.indent = -1;
    this.col = this.quotes = this.listMarkers = this.afterMarker = this.number = this.digits = this.length = this.fenceCol = this.infoChars = 0;
    this.lastMarkerIsList = this.orderedNotOne = false;
    this.firstMarker = this.itemContent = undefined;
    this.firstMarkerEnd = -1;
    this.info = '';
    this.bare = this.breakPossible = true;
    this.breakChar = '';
    this.breakCount = 0;
  }

  /** The line's shape is known: the rest of it needs no look. */
  get plain(): boolean {
    return this.phase === 'plain' && !this.breakPossible;
  }

  /** Columns read so far before the line's first character that is not whitespace. */
  get column(): number {
    return this.indent === -1 ? this.col : this.indent;
  }

  /** Whether the line may still open a tool-call block: no markers, indented at most 3, short. */
  get mayOpenCall(): boolean {
    return this.phase !== 'plain' && this.quotes === 0 && this.listMarkers === 0 && this.phase !== 'bullet' && this.phase !== 'digits' && this.column <= 3 && this.length <= MAX_CALL_FENCE_CHARS && this.infoChars <= MAX_INFO_CHARS;
  }

  /** Feeds one character of the line (never the newline). */
  step(c: string): void {
    if (this.breakPossible) this.stepBreak(c);
    switch (this.phase) {
      case 'lead':
        return this.stepLead(c);
      case 'bullet':
        // A list marker needs whitespace after it ("-x", "**", "1.5" are text).
        if (c === ' ' || c === '\t' || c === '\r') {
          this.confirmListMarker();
          this.stepLead(c);
        } else this.phase = 'plain';
        return;
      case 'digits':
        if (c >= '0' && c <= '9' && this.digits < 9) {
          this.digits++;
          this.number = this.number * 10 + Number(c);
          this.col++;
        } else if (c === '.' || c === ')') {
          this.phase = 'bullet';
          this.col++;
        } else this.phase = 'plain';
        return;
      case 'run':
        if (c === this.char) {
          this.length++;
          this.col++;
        } else if (this.length < 3) this.phase = 'plain';
        else {
          this.phase = 'info';
          this.stepInfo(c);
        }
        return;
      case 'info':
        return this.stepInfo(c);
      case 'plain':
        return;
    }
  }

  /** The line ended: its shape. */
  end(): LineShape {
    if (this.phase === 'bullet') this.confirmListMarker(); // "-" alone starts an empty list item
    const emptyItem = this.firstMarkerEnd !== -1;
    if (emptyItem) {
      this.itemContent = this.firstMarkerEnd + 1;
      this.firstMarkerEnd = -1;
    }
    const isFence = (this.phase === 'run' || this.phase === 'info') && this.length >= 3 && !(this.lastMarkerIsList && this.afterMarker > 4);
    return {
      blank: this.indent === -1 && this.phase === 'lead',
      indent: this.column,
      quotes: this.quotes,
      listMarkers: this.listMarkers,
      firstMarker: this.firstMarker,
      itemContent: this.itemContent,
      orderedNotOne: this.orderedNotOne,
      emptyItem,
      thematicBreak: this.breakPossible && this.breakCount >= 3 && this.column <= 3,
      fence: isFence ? { char: this.char, length: this.length, col: this.fenceCol, info: this.infoChars <= MAX_INFO_CHARS ? this.info.trim().toLowerCase() : undefined, bare: this.bare } : undefined,
    };
  }

  private stepLead(c: string): void {
    if (c === ' ' || c === '\t') {
      const width = c === '\t' ? 4 - (this.col % 4) : 1;
      this.col += width;
      this.afterMarker += width;
      return;
    }
    if (c === '\r') return;
    if (this.indent === -1) this.indent = this.col;
    if (this.firstMarkerEnd !== -1) this.contentStarts();
    // Markers are read at any indentation: inside a list item, "    - x" starts an item in it.
    if (c === '>') {
      this.firstMarker ??= 'quote';
      this.quotes++;
      this.col++;
      this.lastMarkerIsList = false;
      this.afterMarker = 0;
    } else if (c === '-' || c === '+' || c === '*') {
      this.phase = 'bullet';
      this.col++;
    } else if (c >= '0' && c <= '9') {
      this.phase = 'digits';
      this.digits = 1;
      this.number = Number(c);
      this.col++;
    } else if (c === '`' || c === '~') {
      this.phase = 'run';
      this.char = c;
      this.length = 1;
      this.fenceCol = this.col;
      this.col++;
    } else this.phase = 'plain';
  }

  private confirmListMarker(): void {
    if (this.firstMarker === undefined) {
      this.firstMarker = 'list';
      this.firstMarkerEnd = this.col;
      if (this.digits > 0 && this.number !== 1) this.orderedNotOne = true;
    }
    this.listMarkers++;
    this.lastMarkerIsList = true;
    this.afterMarker = 0;
    this.digits = 0;
    this.phase = 'lead';
  }

  private stepBreak(c: string): void {
    if (c === ' ' || c === '\t' || c === '\r') return;
    if ((c === '-' || c === '*' || c === '_') && (this.breakChar === '' || this.breakChar === c)) {
      this.breakChar = c;
      this.breakCount++;
    } else this.breakPossible = false;
  }

  /** The first thing after the first list marker: the item's content column (CommonMark: 1–4 spaces, else 1). */
  private contentStarts(): void {
    const gap = this.col - this.firstMarkerEnd;
    this.itemContent = this.firstMarkerEnd + (gap >= 1 && gap <= 4 ? gap : 1);
    this.firstMarkerEnd = -1;
  }

  private stepInfo(c: string): void {
    // "```tool_call```" is inline code, not a fence.
    if (c === '`' && this.char === '`') {
      this.phase = 'plain';
      return;
    }
    if (++this.infoChars <= MAX_INFO_CHARS) this.info += c;
    if (c !== ' ' && c !== '\t' && c !== '\r') this.bare = false;
  }
}
