import { goQuote } from '../../go-compat/go-format.js';
import type { ValidationResult } from './validation-result.js';

interface TreeNode {
  readonly message: string;
  readonly children: TreeNode[];
}

function render(node: TreeNode, prefix: string, last: boolean): string {
  let out = `${prefix}${node.message}${node.children.length > 0 ? ':\n' : '\n'}`;
  node.children.forEach((child, i) => {
    let sub = prefix;
    if (sub.length >= 4) sub = sub.slice(0, -4) + (last ? '    ' : '│   ');
    const childLast = i === node.children.length - 1;
    out += render(child, sub + (childLast ? '└── ' : '├── '), childLast);
  });
  return out;
}

/**
 * Renders validation results the way `opm validate` prints its error: the first `load` or `convert` problem as a
 * single line (opm stops there), otherwise the `model` problems as opm's tree (`invalid index:` / `└── invalid
 * package "foo":` …). Warnings are not part of opm's output and are left out. Returns `''` when there is no error.
 */
export function formatValidationResults(results: readonly ValidationResult[]): string {
  const errors = results.filter((r) => r.level === 'error');
  const early = errors.find((r) => r.stage === 'load' || r.stage === 'convert');
  if (early) return early.message;
  const model = errors.filter((r) => r.stage === 'model');
  if (model.length === 0) return '';
  const root: TreeNode = { message: 'invalid index', children: [] };
  const child = (parent: TreeNode, message: string): TreeNode => {
    let node = parent.children.find((c) => c.message === message && c.children.length > 0);
    if (!node) {
      node = { message, children: [] };
      parent.children.push(node);
    }
    return node;
  };
  for (const r of model) {
    let node = root;
    if (r.package !== undefined) node = child(node, `invalid package ${goQuote(r.package)}`);
    if (r.channel !== undefined) node = child(node, `invalid channel ${goQuote(r.channel)}`);
    if (r.bundle !== undefined) node = child(node, `invalid bundle ${goQuote(r.bundle)}`);
    node.children.push({ message: r.message, children: [] });
  }
  return render(root, '', true).trim();
}
