export * from './reconcile.js';
