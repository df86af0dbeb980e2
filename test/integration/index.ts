import { runMochaIn } from './mochaRunner';

export function run(): Promise<void> {
  return runMochaIn(__dirname);
}
