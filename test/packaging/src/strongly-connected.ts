// Strongly connected components of a directed graph: the import cycles the figures report.
import { compareText } from './workspace.js';

/** A directed graph: each node's successors. Every successor is a key too. */
export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The strongly connected components with more than one node (Tarjan's algorithm), each sorted, in the
 * order of their first node. Self-loops are not cycles here: a folder importing itself is no coupling.
 */
export function cycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(lowOf(node), lowOf(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(lowOf(node), indexOf(next)));
      }
    }
    if (lowOf(node) !== indexOf(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) components.push(component.sort(compareText));
  };
  const lowOf = (node: string): number => low.get(node) ?? 0;
  const indexOf = (node: string): number => index.get(node) ?? 0;
  for (const node of [...graph.keys()].sort(compareText)) if (!index.has(node)) connect(node);
  return components.sort((a, b) => compareText(a[0] ?? '', b[0] ?? ''));
}
