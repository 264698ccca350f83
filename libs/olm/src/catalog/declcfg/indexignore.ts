/** Name of the ignore files opm honours inside a catalog directory. */
export const INDEX_IGNORE_FILE = '.indexignore';

/**
 * Translates a Go `filepath.Match` pattern into an anchored regular expression; `undefined` for a malformed
 * pattern (Go's `ErrBadPattern`, which go-git treats as "no match").
 */
function goMatchRegExp(pattern: string): RegExp | undefined {
  let re = '^';
  const escapeRe = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      i++;
      if (i >= pattern.length) return undefined;
      re += escapeRe(pattern[i]!);
    } else if (c === '[') {
      i++;
      let cls = '[';
      if (pattern[i] === '^') {
        cls += '^';
        i++;
      }
      let items = 0;
      const readChar = (): string | undefined => {
        let ch = pattern[i];
        if (ch === undefined || ch === '-' || ch === ']') return undefined;
        if (ch === '\\') {
          i++;
          ch = pattern[i];
          if (ch === undefined) return undefined;
        }
        i++;
        return ch;
      };
      while (pattern[i] !== ']' || items === 0) {
        const lo = readChar();
        if (lo === undefined) return undefined;
        if (pattern[i] === '-') {
          i++;
          const hi = readChar();
          if (hi === undefined || hi < lo) return undefined;
          cls += `${escapeRe(lo)}-${escapeRe(hi)}`;
        } else {
          cls += escapeRe(lo);
        }
        items++;
      }
      re += `${cls}]`;
    } else {
      re += escapeRe(c);
    }
  }
  return new RegExp(`${re}$`);
}

function goMatch(pattern: string, name: string): boolean {
  return goMatchRegExp(pattern)?.test(name) ?? false;
}

type MatchResult = 'none' | 'exclude' | 'include';

/** One line of an `.indexignore` file, as go-git's `gitignore.ParsePattern` reads it. */
class IgnorePattern {
  private readonly inclusion: boolean;
  private readonly dirOnly: boolean;
  private readonly isGlob: boolean;
  private readonly parts: string[];

  constructor(
    line: string,
    private readonly domain: readonly string[],
  ) {
    let p = line;
    this.inclusion = p.startsWith('!');
    if (this.inclusion) p = p.slice(1);
    if (!p.endsWith('\\ ')) p = p.replace(/ +$/, '');
    this.dirOnly = p.endsWith('/');
    if (this.dirOnly) p = p.slice(0, -1);
    this.isGlob = p.includes('/');
    this.parts = p.split('/');
  }

  match(path: readonly string[], isDir: boolean): MatchResult {
    if (path.length <= this.domain.length) return 'none';
    for (let i = 0; i < this.domain.length; i++) if (path[i] !== this.domain[i]) return 'none';
    const rest = path.slice(this.domain.length);
    const ok = this.isGlob ? this.globMatch(rest, isDir) : this.simpleNameMatch(rest, isDir);
    if (!ok) return 'none';
    return this.inclusion ? 'include' : 'exclude';
  }

  private simpleNameMatch(path: readonly string[], isDir: boolean): boolean {
    for (let i = 0; i < path.length; i++) {
      if (!goMatch(this.parts[0]!, path[i]!)) continue;
      return !(this.dirOnly && !isDir && i === path.length - 1);
    }
    return false;
  }

  private globMatch(input: readonly string[], isDir: boolean): boolean {
    let path = input;
    let matched = false;
    let canTraverse = false;
    for (let i = 0; i < this.parts.length; i++) {
      const pattern = this.parts[i]!;
      if (pattern === '') {
        canTraverse = false;
        continue;
      }
      if (pattern === '**') {
        if (i === this.parts.length - 1) break;
        canTraverse = true;
        continue;
      }
      if (pattern.includes('**')) return false;
      if (path.length === 0) return false;
      if (canTraverse) {
        canTraverse = false;
        while (path.length > 0) {
          const e = path[0]!;
          path = path.slice(1);
          if (goMatch(pattern, e)) {
            matched = true;
            break;
          }
          if (path.length === 0) matched = false;
        }
      } else {
        if (!goMatch(pattern, path[0]!)) return false;
        matched = true;
        path = path.slice(1);
      }
    }
    if (matched && this.dirOnly && !isDir && path.length === 0) matched = false;
    return matched;
  }
}

/**
 * The `.indexignore` matcher of opm (joelanford/ignore over go-git's gitignore): patterns of every `.indexignore`
 * in the tree, each scoped to its directory, the last matching pattern deciding. opm asks with `isDir = false`
 * for files only, so a `dir/` pattern excludes the files below `dir`.
 */
export class IndexIgnoreMatcher {
  private readonly patterns: IgnorePattern[] = [];

  /** Adds the lines of an `.indexignore` found in directory `dir` (`/`-separated, `''` for the root). */
  add(dir: string, content: string): void {
    const domain = dir === '' ? [] : dir.split('/');
    for (const raw of content.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      this.patterns.push(new IgnorePattern(line, domain));
    }
  }

  /** Whether the `/`-separated relative path is ignored. */
  ignores(path: string, isDir = false): boolean {
    const parts = path.split('/');
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const m = this.patterns[i]!.match(parts, isDir);
      if (m !== 'none') return m === 'exclude';
    }
    return false;
  }
}
