import { randomUUID } from 'node:crypto';
import type { ToolHandler } from './builtinTool';

export const generateUuid: ToolHandler = async () => JSON.stringify({ uuid: randomUUID() });
