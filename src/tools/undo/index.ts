/** The undo room: checkpoints of what a call changed, grouped per turn or call, and putting them back. Outside it, import only this file. */
export { CallGroups, type StoreAccess } from './callGroups';
export { type UndoOptions, type UndoResult } from './checkpointRestore';
export { CheckpointStore, type DroppedTurn, type TurnSummary } from './checkpoints';
