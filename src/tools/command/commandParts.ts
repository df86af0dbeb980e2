// The shapes of a command judgement (re-exported by commandPolicy.ts, the public entry).

export interface CommandPolicy {
  readonly allowed: readonly string[];
  readonly denied: readonly string[];
}
export type CommandVerdict = 'allow' | 'deny' | 'ask';
export interface CommandPart {
  /** The part as written (cut to 500 characters). */
  text: string;
  verdict: CommandVerdict;
  /** Why, in words a person and the model can read. */
  reason: string;
  /** Files its redirections (or find -fprint/-delete) write to. */
  writes?: string[];
  /** The settings entry that allowed or denied it, as written (none: a built-in judgement). */
  rule?: string;
}
export interface CommandJudgement {
  verdict: CommandVerdict;
  parts: CommandPart[];
  /** Set when the command could not be (fully) parsed: it then asks, unless a part is denied. */
  problem?: string;
}
