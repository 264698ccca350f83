// The controller runtime's helper guide as code: the TypeScript blocks of its README section, each a module
// named by its first-line comment, type-checked together against the runtime's sources, so the guide's
// examples keep compiling as the helpers change.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { packageSources, toPosix, workspacePackages } from './workspace.js';

/** One example of the guide: the module it is (`api.ts`), its text and the README line its block starts on. */
export interface GuideModule {
  readonly name: string;
  readonly text: string;
  readonly line: number;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*$/;
const MODULE_NAME = /^\/\/ ([\w.-]+\.ts)\b/;

/**
 * The ```ts blocks under the heading `section` (to the next heading of its level or higher). Each must open
 * with `// <name>.ts`, the module it is, which the other blocks import as `./<name>.js`.
 */
export function guideModules(markdown: string, section: string): GuideModule[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => HEADING.exec(l)?.[2] === section);
  if (start < 0) throw new Error(`README.md: no heading "${section}"`);
  const level = HEADING.exec(lines[start] ?? '')?.[1]?.length ?? 1;
  const modules: GuideModule[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const heading = HEADING.exec(lines[i] ?? '');
    if (heading && (heading[1]?.length ?? 0) <= level) break;
    if (lines[i] !== '```ts') continue;
    const close = lines.indexOf('```', i + 1);
    if (close < 0) throw new Error(`README.md:${i + 1}: code block not closed`);
    const body = lines.slice(i + 1, close);
    const name = MODULE_NAME.exec(body[0] ?? '')?.[1];
    if (!name) throw new Error(`README.md:${i + 2}: a guide example opens with "// <module>.ts"`);
    modules.push({ name, text: `${body.join('\n')}\n`, line: i + 1 });
    i = close;
  }
  return modules;
}

/**
 * The type errors of `modules`, compiled together as files of a folder of `packageDir` (so they resolve the
 * workspace's packages as its code does) with the workspace's compiler options; one line each, naming the
 * README line. Nothing is written to disk.
 */
export function typeErrors(root: string, packageDir: string, modules: readonly GuideModule[]): string[] {
  const base = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.base.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!base) throw new Error('tsconfig.base.json: not readable');
  const folder = join(packageDir, 'readme-guide');
  const files = new Map(modules.map((m) => [join(folder, m.name), m]));
  const options: ts.CompilerOptions = { ...base.options, noEmit: true, types: ['node'] };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.readFile = (file) => files.get(file)?.text ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const module = files.get(file);
    return module
      ? ts.createSourceFile(file, module.text, language)
      : getSourceFile.call(host, file, language, ...rest);
  };
  host.directoryExists = (dir) =>
    dir === folder || dir.startsWith(`${folder}/`) || ts.sys.directoryExists(dir);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.has(d.file.fileName))
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      if (!d.file || d.start === undefined) return text;
      const module = files.get(d.file.fileName);
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `README.md:${(module?.line ?? 0) + 1 + line} (${module?.name}): ${text}`;
    });
}

const RUNTIME_IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*'@opkit\/controller-runtime(?:\/[\w-]+)?'/g;
const EJS_TAG = /<%[\s\S]*?%>/g;

/**
 * The runtime's values (not types) that operator code imports, each with the files that import it: the
 * templates of the Nx plugin's generators (`src/generators/<generator>/files/`, EJS tags left out) and the
 * sources of the operators under `operators/`.
 */
export function runtimeHelpersInUse(root: string): Map<string, string[]> {
  const packages = workspacePackages(root);
  const plugin = packages.find((p) => p.name === '@opkit/nx');
  if (!plugin) throw new Error('no @opkit/nx package in the workspace');
  const files = [
    ...templateFiles(join(root, plugin.dir, 'src', 'generators')),
    ...packages
      .filter((p) => p.dir.startsWith('operators/'))
      .flatMap((p) => packageSources(root, p))
      .filter((f) => f.inPackage.startsWith('src/'))
      .map((f) => join(root, f.path)),
  ];
  const users = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(EJS_TAG, '');
    for (const match of text.matchAll(RUNTIME_IMPORT)) {
      if (match[1]) continue; // import type { … }
      for (const entry of (match[2] ?? '').split(',')) {
        const name =
          entry
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim() ?? '';
        if (name === '' || name.startsWith('type ')) continue;
        users.set(name, [...(users.get(name) ?? []), toPosix(file.slice(root.length + 1))]);
      }
    }
  }
  return users;
}

/** The TypeScript templates under the generators' `files/` folders. */
function templateFiles(generators: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, inFiles: boolean): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, inFiles || entry.name === 'files');
      else if (inFiles && /\.ts(?:__tmpl__)?$/.test(entry.name)) found.push(full);
    }
  };
  walk(generators, false);
  return found.sort();
}
