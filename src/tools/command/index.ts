/** The command room: how run_bash reads, judges and reports a shell command. Outside it, import only this file. */
export { describeChanges, workspaceState } from './commandChanges';
export { checkPolicyEntries, describeRefusal, judgeCommand, partsToApprove, type CommandJudgement, type CommandPart } from './commandPolicy';
