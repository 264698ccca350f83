// operator-sdk scorecard's basic and OLM suites, run in-process.
export * from './config.js';
export * from './run.js';
export * from './tests.js';
