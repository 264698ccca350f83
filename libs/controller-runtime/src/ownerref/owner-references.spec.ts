import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import {
  AlreadyOwnedError,
  CrossNamespaceOwnerError,
  getControllerOf,
  InvalidOwnerError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';

const memcached = (uid = 'uid-1', name = 'cache'): KubeObject => ({
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: { name, namespace: 'team-a', uid },
});
const deployment = (namespace: string | undefined = 'team-a'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: namespace ? { name: 'cache', namespace } : { name: 'cache' },
});
const controllerRef = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  name: 'cache',
  uid: 'uid-1',
  controller: true,
  blockOwnerDeletion: true,
};

describe('setControllerReference', () => {
  it('adds a controller reference', () => {
    // GIVEN a Deployment without owners WHEN the Memcached becomes its controller
    const obj = deployment();
    setControllerReference(memcached(), obj);
    // THEN it carries one controller reference
    expect(obj.metadata.ownerReferences).toStrictEqual([controllerRef]);
    expect(getControllerOf(obj)).toStrictEqual(controllerRef);
    expect(isControlledBy(obj, memcached())).toBe(true);
    expect(isControlledBy(obj, memcached('uid-2'))).toBe(false);
  });

  it('replaces a reference to the same owner and keeps others', () => {
    // GIVEN a non-controller reference to the owner and one to someone else
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', uid: 'uid-9' };
    const obj = deployment();
    obj.metadata.ownerReferences = [
      other,
      { ...controllerRef, controller: false, blockOwnerDeletion: false },
    ];
    // WHEN set twice THEN the owner's reference is replaced in place
    setControllerReference(memcached(), obj);
    setControllerReference(memcached(), obj);
    expect(obj.metadata.ownerReferences).toStrictEqual([other, controllerRef]);
  });

  it('replaces the reference to a recreated owner with the same kind and name', () => {
    const obj = deployment();
    setControllerReference(memcached('uid-old'), obj);
    setControllerReference(memcached('uid-1'), obj);
    expect(obj.metadata.ownerReferences).toStrictEqual([controllerRef]);
  });

  it('refuses a second controller', () => {
    // GIVEN a Deployment controlled by one Memcached
    const obj = deployment();
    setControllerReference(memcached(), obj);
    // WHEN another Memcached tries to become its controller
    const error = (() => {
      try {
        setControllerReference(memcached('uid-2', 'other'), obj);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    // THEN AlreadyOwnedError names the existing controller and the object is unchanged
    expect(error).toBeInstanceOf(AlreadyOwnedError);
    expect(error).toMatchObject({
      code: 'OWNERREF_ALREADY_OWNED',
      object: 'team-a/cache',
      owner: controllerRef,
      message: 'object team-a/cache is already owned by another Memcached controller cache',
    });
    expect(obj.metadata.ownerReferences).toStrictEqual([controllerRef]);
  });

  it('refuses a namespaced owner in another namespace', () => {
    const obj = deployment('team-b');
    expect(() => setControllerReference(memcached(), obj)).toThrow(CrossNamespaceOwnerError);
    expect(() => setControllerReference(memcached(), obj)).toThrow(
      expect.objectContaining({
        code: 'OWNERREF_CROSS_NAMESPACE',
        ownerNamespace: 'team-a',
        objectNamespace: 'team-b',
      }),
    );
    expect(obj.metadata.ownerReferences).toBeUndefined();
  });

  it('refuses a namespaced owner for a cluster-scoped object', () => {
    const clusterRole: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r' },
    };
    expect(() => setControllerReference(memcached(), clusterRole)).toThrow(
      expect.objectContaining({
        code: 'OWNERREF_CROSS_NAMESPACE',
        message: "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace team-a",
      }),
    );
  });

  it('lets a cluster-scoped owner own namespaced and cluster-scoped objects', () => {
    const owner: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Tenant',
      metadata: { name: 't', uid: 'uid-t' },
    };
    const ref = {
      apiVersion: 'example.com/v1',
      kind: 'Tenant',
      name: 't',
      uid: 'uid-t',
      controller: true,
      blockOwnerDeletion: true,
    };
    const namespaced = deployment('team-b');
    const clusterScoped = deployment(undefined);
    setControllerReference(owner, namespaced);
    setControllerReference(owner, clusterScoped);
    expect(namespaced.metadata.ownerReferences).toStrictEqual([ref]);
    expect(clusterScoped.metadata.ownerReferences).toStrictEqual([ref]);
  });

  it('refuses an owner without apiVersion, kind, name or uid', () => {
    const owner: KubeObject = { kind: 'Memcached', metadata: { name: 'cache', namespace: 'team-a' } };
    expect(() => setControllerReference(owner, deployment())).toThrow(InvalidOwnerError);
    expect(() => setControllerReference(owner, deployment())).toThrow(
      expect.objectContaining({ code: 'OWNERREF_INVALID_OWNER', missing: ['apiVersion', 'metadata.uid'] }),
    );
  });
});

describe('setOwnerReference', () => {
  it('adds a non-controller reference next to the controller', () => {
    // GIVEN a Deployment controlled by a Memcached
    const obj = deployment();
    setControllerReference(memcached(), obj);
    const cfg: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'team-a', uid: 'uid-9' },
    };
    // WHEN a ConfigMap is added as a plain owner (twice)
    setOwnerReference(cfg, obj);
    setOwnerReference(cfg, obj);
    // THEN it is listed once, without controller flags, and the controller is unchanged
    expect(obj.metadata.ownerReferences).toStrictEqual([
      controllerRef,
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', uid: 'uid-9' },
    ]);
    expect(getControllerOf(obj)).toStrictEqual(controllerRef);
    expect(isControlledBy(obj, cfg)).toBe(false);
  });

  it('validates the owner like setControllerReference', () => {
    expect(() => setOwnerReference(memcached(), deployment('team-b'))).toThrow(CrossNamespaceOwnerError);
    expect(() => setOwnerReference({ metadata: {} }, deployment())).toThrow(InvalidOwnerError);
  });
});

describe('getControllerOf', () => {
  it('returns undefined without a controller reference', () => {
    const obj = deployment();
    expect(getControllerOf(obj)).toBeUndefined();
    setOwnerReference(memcached(), obj);
    expect(getControllerOf(obj)).toBeUndefined();
    expect(isControlledBy(obj, memcached())).toBe(false);
  });
});
