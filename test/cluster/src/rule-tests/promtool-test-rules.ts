import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { type RuleGroup, ruleFileYaml } from '@opkit/controller-runtime/monitoring';

/** The name the rendered rules get next to the test files: what their `rule_files:` must list. */
export const RULE_FILE_NAME = 'rules.yaml';

export interface RuleTestRun {
  /** Whether every test case of every file passed. */
  readonly passed: boolean;
  /** promtool's output, stdout then stderr: its report of each failed case. */
  readonly output: string;
}

/**
 * Renders `groups` to `rules.yaml` in a scratch directory, copies the rule test files beside it (their
 * `rule_files:` name `rules.yaml`) and runs `promtool test rules` on them.
 */
export async function promtoolTestRules(
  promtool: string,
  groups: readonly RuleGroup[],
  testFiles: readonly string[],
): Promise<RuleTestRun> {
  const dir = mkdtempSync(join(tmpdir(), 'rule-tests-'));
  try {
    writeFileSync(join(dir, RULE_FILE_NAME), ruleFileYaml(groups));
    const copies = testFiles.map((file) => {
      const copy = join(dir, basename(file));
      copyFileSync(file, copy);
      return copy;
    });
    try {
      const { stdout, stderr } = await promisify(execFile)(promtool, ['test', 'rules', ...copies], {
        cwd: dir,
        timeout: 60_000,
      });
      return { passed: true, output: `${stdout}${stderr}` };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      if (failed.stdout === undefined) throw error;
      return { passed: false, output: `${failed.stdout}${failed.stderr ?? ''}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
