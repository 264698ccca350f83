export * from './predicates.js';
