export * from './handlers.js';
