import { describe, expect, it } from 'vitest';
import { prometheusServerVersion } from './recipes.js';

describe('prometheusServerVersion', () => {
  it("reads Prometheus' release from its Go module's version (v0.<major><minor:2>.<patch>)", () => {
    expect(prometheusServerVersion('0.316.0')).toBe('3.16.0');
    expect(prometheusServerVersion('0.300.1')).toBe('3.0.1');
    expect(prometheusServerVersion('0.309.2')).toBe('3.9.2');
  });
});
