import { describe, expect, it } from 'vitest';
import { authConf, desiredAuthConfSecret, desiredStatefulSet, passwordOfAuthConf } from './resources.js';

const cr = {
  apiVersion: 'cache.example.com/v1',
  kind: 'RedisCluster',
  metadata: { name: 'cache', namespace: 'ns', uid: 'u-1' },
  spec: { size: 6 },
};

describe('auth.conf', () => {
  it('gives back the password it was written with, whatever its characters', () => {
    for (const password of [
      'plain',
      'with "quotes" and \\backslashes\\',
      'new\nline and\rreturn',
      ' spaces ',
      'ü€😀',
    ])
      expect(passwordOfAuthConf(authConf(password))).toBe(password);
  });

  it('reads nothing from text it did not write', () => {
    expect(passwordOfAuthConf(undefined)).toBeUndefined();
    expect(passwordOfAuthConf('masterauth "x"\n')).toBeUndefined();
    expect(passwordOfAuthConf('requirepass unquoted\n')).toBeUndefined();
  });

  it('keeps the previous password only while given, and never mounts it into the pods', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(desiredAuthConfSecret(cr, 'new', 'old').data).toEqual({
      'auth.conf': b64(authConf('new')),
      'previous-password': b64('old'),
    });
    expect(Object.keys(desiredAuthConfSecret(cr, 'new').data)).toEqual(['auth.conf']);
    const sts = desiredStatefulSet(cr, 'redis:7', 6, 'digest') as unknown as {
      spec: { template: { spec: { volumes: { name: string; secret?: { items?: { key: string }[] } }[] } } };
    };
    const auth = sts.spec.template.spec.volumes.find((v) => v.name === 'auth');
    expect(auth?.secret?.items?.map((i) => i.key)).toEqual(['auth.conf']);
  });
});
