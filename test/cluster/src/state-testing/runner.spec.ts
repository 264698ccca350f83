import { describe, expect, it } from 'vitest';
import { namesField } from './runner.js';

describe('whether a refusal names the field', () => {
  it('takes the field as written, or its map key in the brackets the API server uses', () => {
    expect(namesField('spec.size: Invalid value: 2: must be >= 3', 'spec.size')).toBe(true);
    expect(namesField('spec.config[hz]: Invalid value: "1\\n2": must be one line', 'spec.config.hz')).toBe(
      true,
    );
    expect(namesField('spec.config: Invalid value: keys must be lower case', 'spec.config.hz')).toBe(false);
    expect(namesField('spec.replicas: Invalid value', 'spec.size')).toBe(false);
  });
});
