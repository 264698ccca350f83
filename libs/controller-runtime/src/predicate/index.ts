// Predicates: pure filters of watch events (generation, resourceVersion, labels, annotations, a label
// selector, and/or/not). Public through `@opkit/controller-runtime/controller`.
export {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  or,
  type Predicate,
  predicateFor,
  resourceVersionChanged,
} from './predicates.js';
