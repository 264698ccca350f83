import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from './src/testing/vitest-projects.js';

export default defineConfig(opkitVitestConfig());
