/**
 * A call that a guard or a person refused: a path outside the workspace, a protected write
 * nobody could confirm, a declined approval, a denied command. The registry reports it with the
 * status `refused` rather than `error`, so callers need not guess from the wording.
 */
export class ToolRefusedError extends Error {
  override name = 'ToolRefusedError';
}

/** A call that was stopped (by the person, or by its time budget) before it finished. */
export class ToolCancelledError extends Error {
  override name = 'ToolCancelledError';
}
