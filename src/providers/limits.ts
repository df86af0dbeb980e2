/** Bounds on what one model reply may put into the conversation. */

/**
 * The longest answer text read from one model reply; the Agent cuts longer ones with a notice.
 * Text a provider hides counts too (prompt-based tool-call blocks): such a provider stops reading
 * at the limit itself and ends the reply with ANSWER_CAP_REASON.
 */
export const MAX_ANSWER_CHARS = 1_000_000;

/** The finish reason of a reply a provider stopped reading at MAX_ANSWER_CHARS; the Agent ends the answer with its cut notice and runs none of its calls. */
export const ANSWER_CAP_REASON = 'answer_cap';

/** The longest arguments text of one tool call; longer ones are dropped and the call is answered with an error. */
export const MAX_TOOL_ARGUMENT_CHARS = 1_000_000;

/** What a dropped call's arguments become in the conversation (the model gets the error as the call's result). */
export const OVERSIZED_ARGUMENTS_PLACEHOLDER = '{}';

/** The result for a call whose arguments were dropped for passing MAX_TOOL_ARGUMENT_CHARS (set as `ToolCall.unreadable`). */
export function oversizedArgumentsError(toolName: string): string {
  return `Error: the arguments for ${toolName} were longer than ${MAX_TOOL_ARGUMENT_CHARS.toLocaleString('en-US')} characters (alone or with the other calls of this reply); they were dropped and the tool was not run. Send smaller arguments (for example, write a large file in parts).`;
}
