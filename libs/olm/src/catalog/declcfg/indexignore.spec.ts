import { describe, expect, it } from 'vitest';
import { IndexIgnoreMatcher } from './indexignore.js';

function matcher(files: Record<string, string>): IndexIgnoreMatcher {
  const m = new IndexIgnoreMatcher();
  for (const [dir, content] of Object.entries(files)) m.add(dir, content);
  return m;
}

describe('IndexIgnoreMatcher (gitignore semantics of go-git, as opm uses them)', () => {
  it('matches a name pattern in any directory below the .indexignore', () => {
    const m = matcher({ '': '*.md\n' });
    expect(m.ignores('README.md')).toBe(true);
    expect(m.ignores('a/b/NOTES.md')).toBe(true);
    expect(m.ignores('catalog.yaml')).toBe(false);
  });

  it('scopes patterns to the directory of their .indexignore', () => {
    const m = matcher({ docs: '*.yaml\n' });
    expect(m.ignores('docs/x.yaml')).toBe(true);
    expect(m.ignores('x.yaml')).toBe(false);
  });

  it('excludes the files below a directory pattern, never a file of that name', () => {
    const m = matcher({ '': 'drafts/\n' });
    expect(m.ignores('drafts/next.yaml')).toBe(true);
    expect(m.ignores('drafts')).toBe(false);
  });

  it('lets a later negation re-include a file', () => {
    const m = matcher({ '': '*.yaml\n!keep.yaml\n' });
    expect(m.ignores('drop.yaml')).toBe(true);
    expect(m.ignores('keep.yaml')).toBe(false);
  });

  it('anchors patterns containing a slash and supports **', () => {
    const m = matcher({ '': '/top.yaml\na/**/z.yaml\n' });
    expect(m.ignores('top.yaml')).toBe(true);
    expect(m.ignores('sub/top.yaml')).toBe(false);
    expect(m.ignores('a/b/c/z.yaml')).toBe(true);
  });

  it('skips comments, blank lines and malformed patterns', () => {
    const m = matcher({ '': '# *.yaml\n\n[\n' });
    expect(m.ignores('x.yaml')).toBe(false);
  });
});
