// Reads the shell commands of a guide's walk-through out of its Markdown, so a test can run them as a reader
// would and breaks when the guide changes.

/** One command of a guide: its text as a shell runs it and the line of the Markdown file it starts on. */
export interface GuideCommand {
  readonly text: string;
  readonly line: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const SHELL_LANGUAGES = new Set(['sh', 'shell', 'bash', 'console']);
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const HEREDOC = /<<(-?)\s*(['"]?)([A-Za-z_][\w]*)\2/;

/**
 * The commands of the fenced shell blocks (```sh, ```bash, ```shell) under the heading `section` (up to the
 * next heading of the same or a higher level), in order. Comments and blank lines are dropped, lines ending in
 * a backslash are joined and a heredoc (`<<'EOF'` … `EOF`) stays part of its command. Throws naming `file`
 * when the section is missing, holds no shell block, or a block or heredoc is not closed.
 */
export function guideCommands(markdown: string, section: string, file = 'the guide'): GuideCommand[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((l) => HEADING.exec(l)?.[2] === section);
  if (start < 0) throw new Error(`${file}: no heading "${section}"`);
  const level = HEADING.exec(lines[start] ?? '')?.[1]?.length ?? 1;
  const commands: GuideCommand[] = [];
  let blocks = 0;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heading = HEADING.exec(line);
    if (heading && (heading[1]?.length ?? 0) <= level) break;
    const fence = FENCE.exec(line);
    if (!fence) continue;
    const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[2] ?? '```'));
    if (close < 0) throw new Error(`${file}:${i + 1}: code block not closed`);
    if (SHELL_LANGUAGES.has(fence[3] ?? '')) {
      blocks++;
      commands.push(...blockCommands(lines.slice(i + 1, close), i + 2, file));
    }
    i = close;
  }
  if (blocks === 0) throw new Error(`${file}: no shell block under "${section}"`);
  return commands;
}

/** The commands of one block's lines; `first` is the file line number of `body[0]`. */
function blockCommands(body: readonly string[], first: number, file: string): GuideCommand[] {
  const commands: GuideCommand[] = [];
  for (let i = 0; i < body.length; i++) {
    const startLine = first + i;
    let text = stripComment(body[i] ?? '').trimEnd();
    if (text.trim() === '') continue;
    while (text.endsWith('\\') && i + 1 < body.length) {
      i++;
      text = `${text.slice(0, -1).trimEnd()} ${stripComment(body[i] ?? '').trim()}`.trimEnd();
    }
    const heredoc = HEREDOC.exec(text);
    if (heredoc) {
      const end = heredoc[3] ?? '';
      const tabs = heredoc[1] === '-';
      const stop = body.findIndex((l, j) => j > i && (tabs ? l.replace(/^\t+/, '') : l) === end);
      if (stop < 0) throw new Error(`${file}:${startLine}: heredoc ${end} not closed`);
      text = [text, ...body.slice(i + 1, stop + 1)].join('\n');
      i = stop;
    }
    commands.push({ text: text.trim(), line: startLine });
  }
  return commands;
}

/** A line without its `# comment`: a `#` at the start or after a blank, outside quotes. */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '\\') {
      i++;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i);
    }
  }
  return line;
}
