export type WriteApprovals = 'protected' | 'always' | 'never';

/**
 * `toolbelt.approvals.writes` from the values of every level that sets it: the strictest wins, so
 * a workspace can ask for more review than the person chose, never for less.
 */
export function strictestWriteApprovals(values: readonly unknown[]): WriteApprovals {
  if (values.includes('always')) return 'always';
  return values.includes('never') && !values.includes('protected') ? 'never' : 'protected';
}
