import { MAX_CALL_FENCE_CHARS, type FenceRun, type LineShape } from './markdownLines';

/** What a line did to the tool-call blocks of an answer: the block being read ends, a new one opens. */
export interface FenceEvent {
  /** `close`: the call block closes on this line; `drop`: it turned out to be no call (all of it is text). */
  end?: 'close' | 'drop';
  /** A call block opens on this line, with this tag. */
  open?: string;
}

type Open = {
  char: '`' | '~';
  length: number;
  /** The tag of a call block. */
  call: string | undefined;
} & (
  | /** At the top level: closes at column ≤ 3. */ { kind: 'top' }
  /** In a list item whose content starts at `content`: closes at content..content+3, ends left of content. */
  | { kind: 'item'; content: number }
  /** In the list item `content` if it is still open, else at the top level: followed while both readings agree. */
  | { kind: 'either'; content: number }
);

/** The list item whose content starts at column 2 or 3 (only those can hold a line indented ≤ 3). */
interface Item {
  content: number;
  /** It may have ended (a less indented line that may or may not continue its paragraph). */
  maybe: boolean;
  /** An item inside it may be open: a fence indented 4 or more may be that item's. */
  deeper: boolean;
}

type Previous = 'blank' | 'paragraph' | 'other';

/**
 * Follows an answer's code fences line by line, with CommonMark's rules as the chat panel's
 * markdown-it reads them, to tell tool-call blocks from quoted ones. A block tagged `tool_call` (or
 * `json`) is a call only when it opens on a line with no `>` or list marker before it, indented
 * at most 3 (relative to the list item it is in), and not inside any other fenced code.
 *
 * Block quotes need no tracking: a line without `>` always leaves them. List items do: their
 * content is indented 2 or 3 columns, like a top-level line. So the tracker knows the last such
 * item and whether it may have ended (a less indented line may continue its paragraph, or not);
 * while it may have, a fence in it is followed only as far as both readings agree. A line where
 * they part (or a numbered item that may be paragraph text) makes the answer ambiguous: from
 * then on none of its blocks is a call; they are shown as text and nothing runs.
 */
export class FenceTracker {
  private open: Open | undefined;
  private item: Item | undefined;
  private previous: Previous = 'blank';
  /** The last line was an empty list item: a blank line now ends it. */
  private emptyItemStarted = false;
  private ambiguousAnswer = false;

  /** The answer became ambiguous: no later block is a call. */
  get poisoned(): boolean {
    return this.ambiguousAnswer;
  }

  /** Whether a line starting at `column` (so far) could open a call block. */
  mayOpenCall(column: number): boolean {
    if (this.ambiguousAnswer) return false;
    if (!this.open) return true;
    // A line left of a list item's content leaves the item, and the fence in it.
    return this.open.kind === 'item' && column < this.open.content;
  }

  /** Reads one line's shape; says what it did to call blocks. */
  line(shape: LineShape): FenceEvent {
    const open = this.open;
    if (!open) return this.outside(shape);
    const fence = closing(shape, open);
    if (open.kind === 'top') return fence && fence.col <= 3 ? this.close(open) : {};
    if (open.kind === 'item') {
      if (!shape.blank && shape.indent < open.content) {
        this.open = this.item = undefined;
        this.previous = 'other';
        const next = this.outside(shape);
        return open.call !== undefined ? { ...next, end: 'drop' } : next;
      }
      return fence && fence.col >= open.content && fence.col <= open.content + 3 ? this.close(open) : {};
    }
    // Closing in the item: content..content+3; at the top level: ≤ 3. Left of content the item ends.
    if (fence && fence.col >= open.content && fence.col <= 3) return this.close(open);
    if (!shape.blank && (shape.indent < open.content || (fence && fence.col <= open.content + 3))) {
      this.ambiguousAnswer = true;
      this.open = { ...open, kind: 'top', call: undefined };
      return open.call !== undefined ? { end: 'drop' } : {};
    }
    return {};
  }

  private close(open: Open): FenceEvent {
    this.open = undefined;
    this.previous = 'other';
    return open.call !== undefined ? { end: 'close' } : {};
  }

  /** A line outside any fence. */
  private outside(shape: LineShape): FenceEvent {
    const previous = this.previous;
    const emptyItemStarted = this.emptyItemStarted;
    this.emptyItemStarted = false;
    if (shape.blank) {
      // An item begins with at most one blank line: "-", then a blank line, is an empty item, ended.
      if (emptyItemStarted) this.item = undefined;
      this.previous = 'blank';
      return {};
    }
    if (shape.firstMarker === 'list' && !shape.thematicBreak) return this.listLine(shape, previous);
    const fence = shape.fence;
    const item = this.item;
    const lazy = previous === 'paragraph' && !fence && !shape.firstMarker && !shape.thematicBreak;
    if (item && shape.indent < item.content) {
      // Left of the item's content: the item ends, unless plain text continues its paragraph.
      if (lazy) item.maybe = true;
      else this.item = undefined;
    }
    // An item inside it ends at a line left of its content (at least content + 2), unless lazily.
    if (this.item && shape.indent < this.item.content + 2 && !lazy) this.item.deeper = false;
    if (shape.thematicBreak) {
      this.previous = 'other';
      return {};
    }
    // A block quote's paragraph may go on lazily, like any paragraph.
    if (!fence || shape.firstMarker) {
      this.previous = 'paragraph';
      return {};
    }
    const event = this.fenceLine(fence);
    // A fence line that opens nothing is indented code, or text going on with a paragraph.
    if (!this.open) this.previous = previous === 'paragraph' ? 'paragraph' : 'other';
    return event;
  }

  /** A fence line with no marker, outside any fence: which fence it opens, if any. */
  private fenceLine(fence: FenceRun): FenceEvent {
    const item = this.item;
    const tag = !this.ambiguousAnswer && fence.length <= MAX_CALL_FENCE_CHARS && (fence.info === 'tool_call' || fence.info === 'json') ? fence.info : undefined;
    const base = { char: fence.char, length: fence.length, call: tag };
    let open: Open | undefined;
    if (!item || fence.col > item.content + 3) open = fence.col <= 3 ? { ...base, kind: 'top' } : undefined;
    else if (item.deeper && fence.col >= 4) {
      // In the inner item if it is open, in this one if not: the readings part here.
      this.ambiguousAnswer = true;
      return {};
    } else if (!item.maybe) open = { ...base, kind: 'item', content: item.content };
    else if (fence.col <= 3) open = { ...base, kind: 'either', content: item.content };
    else {
      // A fence in the item if it is open, indented text if not: the readings part here.
      this.ambiguousAnswer = true;
      return {};
    }
    this.open = open;
    return open?.call !== undefined ? { open: open.call } : {};
  }

  /** A line whose first marker is a list marker. */
  private listLine(shape: LineShape, previous: Previous): FenceEvent {
    const item = this.item;
    if (!item && shape.indent > 3) {
      // Indented four or more outside an item: code, or text going on with a paragraph.
      this.previous = previous === 'paragraph' ? 'paragraph' : 'other';
      return {};
    }
    const content = shape.itemContent ?? 0;
    this.previous = shape.fence || shape.emptyItem ? 'other' : 'paragraph';
    const nested = item !== undefined && shape.indent >= item.content;
    this.emptyItemStarted = shape.emptyItem && !nested;
    // A list numbered other than 1, or an empty item, cannot interrupt a paragraph: then it may be text.
    if (previous === 'paragraph' && (shape.orderedNotOne || shape.emptyItem)) {
      if (shape.fence && shape.quotes === 0) this.ambiguousAnswer = true;
      if (nested) {
        item.deeper = true;
        return {};
      }
      if (!item) this.item = content <= 3 ? { content, maybe: true, deeper: shape.listMarkers > 1 } : undefined;
      else if (item.content === content || content > 3) {
        item.maybe = true;
        item.deeper ||= shape.listMarkers > 1;
      }
      else this.ambiguousAnswer = true;
      return {};
    }
    // Inside the item a marker starts a deeper item (content ≥ 4), which cannot hold a top-level line.
    if (nested) {
      item.deeper = true;
      return {};
    }
    this.item = content <= 3 ? { content, maybe: false, deeper: shape.listMarkers > 1 } : undefined;
    const fence = shape.fence;
    if (!fence || shape.quotes > 0 || shape.listMarkers > 1 || content > 3) return {};
    // A block opened after a list marker is never a call (calls open on a line of their own).
    this.open = { char: fence.char, length: fence.length, call: undefined, kind: 'item', content };
    return {};
  }
}

/** The line's fence, when it can close `open`: the same character, at least as long, nothing after, no markers. */
function closing(shape: LineShape, open: Open): FenceRun | undefined {
  const fence = shape.fence;
  if (!fence || shape.firstMarker || !fence.bare || fence.char !== open.char || fence.length < open.length) return undefined;
  return fence;
}
