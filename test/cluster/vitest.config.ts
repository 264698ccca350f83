import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from './src/testing/vitest-projects.js';

// Every suite here starts the clusters it needs (a real node, OLM, several at once, one that is killed).
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false }));
