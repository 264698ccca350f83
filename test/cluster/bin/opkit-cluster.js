#!/usr/bin/env node
// Runs the TypeScript CLI straight from source, so `nx run cluster:up` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
