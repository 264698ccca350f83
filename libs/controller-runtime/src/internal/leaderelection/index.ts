export { LeaderElectionLostError, LeaderElector, type Lease } from './leader-elector.js';
