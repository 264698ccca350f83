import { describe, expect, it } from 'vitest';
import {
  authConf,
  ConfigInvalidError,
  desiredAuthConfSecret,
  desiredStatefulSet,
  passwordOfAuthConf,
  redisConf,
} from './resources.js';

const cr = {
  apiVersion: 'cache.example.com/v1',
  kind: 'RedisCluster',
  metadata: { name: 'cache', namespace: 'ns', uid: 'u-1', resourceVersion: '1' },
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

describe('redis.conf', () => {
  const withConfig = (config: Record<string, string>) => ({ ...cr, spec: { size: 6, config } });

  it('writes each spec.config entry as one directive after the ones the operator owns', () => {
    const conf = redisConf(withConfig({ 'maxmemory-policy': 'allkeys-lru', save: '900 1' }));
    expect(conf.split('\n').filter((l) => /^(maxmemory-policy|save) /.test(l))).toEqual([
      'maxmemory-policy allkeys-lru',
      'save 900 1',
    ]);
  });

  it('refuses an entry that would not stay one directive, whatever the API let through', () => {
    for (const value of ['lru\nrequirepass x', 'lru\rdir /', 'a\u0000b', 'x\u007f']) {
      expect(() => redisConf(withConfig({ 'maxmemory-policy': value }))).toThrow(ConfigInvalidError);
    }
    expect(() => redisConf(withConfig({ 'bad key': 'x' }))).toThrow(
      'spec.config key "bad key" is not a redis.conf directive',
    );
  });
});
