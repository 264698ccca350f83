import { describe, expect, it } from 'vitest';
import { planFailure } from './approve.js';
import type { InstallPlan } from './olm-objects.js';

function plan(status: InstallPlan['status']): InstallPlan {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'InstallPlan',
    metadata: { name: 'install-abcde', namespace: 'ops' },
    spec: { approved: false, clusterServiceVersionNames: ['memcached-operator.v0.1.0'] },
    status,
  };
}

describe('planFailure', () => {
  it('is nothing while the plan waits, unpacks or installs', () => {
    expect(planFailure(plan(undefined))).toBeUndefined();
    expect(planFailure(plan({ phase: 'RequiresApproval' }))).toBeUndefined();
    expect(
      planFailure(
        plan({
          phase: 'Installing',
          bundleLookups: [
            {
              path: 'r/b@sha256:1',
              conditions: [{ type: 'BundleLookupPending', status: 'True', reason: 'JobIncomplete' }],
            },
          ],
        }),
      ),
    ).toBeUndefined();
  });

  it("names a failed bundle lookup with OLM's reason and message", () => {
    expect(
      planFailure(
        plan({
          phase: 'Failed',
          bundleLookups: [
            {
              path: 'r/b@sha256:1',
              conditions: [
                {
                  type: 'BundleLookupFailed',
                  status: 'True',
                  reason: 'DeadlineExceeded',
                  message: 'Job was active longer than specified deadline',
                },
              ],
            },
          ],
        }),
      ),
    ).toBe('unpacking r/b@sha256:1 failed: DeadlineExceeded: Job was active longer than specified deadline');
  });

  it("gives a failed plan's message, else its failed condition's", () => {
    expect(planFailure(plan({ phase: 'Failed', message: 'error creating csv' }))).toBe('error creating csv');
    expect(
      planFailure(
        plan({ phase: 'Failed', conditions: [{ type: 'Installed', status: 'False', message: 'forbidden' }] }),
      ),
    ).toBe('forbidden');
  });
});
