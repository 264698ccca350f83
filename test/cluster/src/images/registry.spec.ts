import { describe, expect, it } from 'vitest';
import { registryConfig } from './registry.js';

describe('registryConfig', () => {
  it('listens on the given loopback address and stores under the directory', () => {
    const config = registryConfig('/run/reg', '127.0.0.1:5123', 'secret');
    expect(config).toContain('  addr: 127.0.0.1:5123\n');
    expect(config).toContain('    rootdirectory: /run/reg/data\n');
    expect(config).toContain('  secret: secret\n');
    expect(config).not.toContain('auth:');
  });
});
