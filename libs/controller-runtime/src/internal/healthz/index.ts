export { type Checker, ProbeServer } from './probe-server.js';
