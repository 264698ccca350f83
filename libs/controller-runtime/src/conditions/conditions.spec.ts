import { describe, expect, it } from 'vitest';
import type { Condition } from '../object.js';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';
const at = (time: string) => () => time;

const ready: Condition = {
  type: 'Ready',
  status: 'False',
  reason: 'Progressing',
  message: 'waiting for pods',
  lastTransitionTime: T0,
  observedGeneration: 1,
};

describe('setStatusCondition', () => {
  it('appends a new type with lastTransitionTime = now', () => {
    // GIVEN no conditions WHEN a condition is set
    const result = setStatusCondition(
      undefined,
      { type: 'Ready', status: 'True', reason: 'Up', message: '' },
      at(T1),
    );
    // THEN it is appended with the current time
    expect(result).toStrictEqual({
      conditions: [{ type: 'Ready', status: 'True', reason: 'Up', message: '', lastTransitionTime: T1 }],
      changed: true,
    });
  });

  it('keeps a lastTransitionTime given for a new type', () => {
    const result = setStatusCondition([], { ...ready, lastTransitionTime: T0 }, at(T1));
    expect(result).toStrictEqual({ conditions: [ready], changed: true });
  });

  it('changes lastTransitionTime when the status changes', () => {
    // GIVEN Ready=False since T0 WHEN Ready becomes True at T1
    const input = [ready];
    const result = setStatusCondition(
      input,
      {
        type: 'Ready',
        status: 'True',
        reason: 'Available',
        message: 'all pods ready',
        observedGeneration: 2,
      },
      at(T1),
    );
    // THEN the transition time is T1 and the input is untouched
    expect(result).toStrictEqual({
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Available',
          message: 'all pods ready',
          lastTransitionTime: T1,
          observedGeneration: 2,
        },
      ],
      changed: true,
    });
    expect(input).toStrictEqual([ready]);
    expect(result.conditions).not.toBe(input);
  });

  it('uses the given lastTransitionTime when the status changes', () => {
    const result = setStatusCondition([ready], { ...ready, status: 'True', lastTransitionTime: T1 }, at(T0));
    expect(result.conditions).toStrictEqual([{ ...ready, status: 'True', lastTransitionTime: T1 }]);
  });

  it('keeps lastTransitionTime when only reason, message and observedGeneration change', () => {
    // GIVEN Ready=False since T0 WHEN the reason changes at T1 but the status does not
    const result = setStatusCondition(
      [ready],
      { type: 'Ready', status: 'False', reason: 'ScalingUp', message: '1/3 pods', observedGeneration: 3 },
      at(T1),
    );
    // THEN everything but the transition time is overwritten
    expect(result).toStrictEqual({
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ScalingUp',
          message: '1/3 pods',
          lastTransitionTime: T0,
          observedGeneration: 3,
        },
      ],
      changed: true,
    });
  });

  it('ignores a given lastTransitionTime when the status does not change', () => {
    const result = setStatusCondition([ready], { ...ready, lastTransitionTime: T1 }, at(T1));
    expect(result).toStrictEqual({ conditions: [ready], changed: false });
  });

  it('reports no change when the condition is identical', () => {
    const { lastTransitionTime: _, ...same } = ready;
    const input = [ready];
    const result = setStatusCondition(input, same, at(T1));
    expect(result).toStrictEqual({ conditions: [ready], changed: false });
    expect(result.conditions).not.toBe(input);
  });

  it('removes observedGeneration when the update has none', () => {
    const result = setStatusCondition([ready], {
      type: 'Ready',
      status: 'False',
      reason: ready.reason,
      message: ready.message,
    });
    const { observedGeneration: _, ...withoutGeneration } = ready;
    expect(result).toStrictEqual({ conditions: [withoutGeneration], changed: true });
  });

  it('leaves other conditions in place', () => {
    const { lastTransitionTime: _, ...withoutTime } = ready;
    const degraded: Condition = {
      type: 'Degraded',
      status: 'False',
      reason: 'OK',
      message: '',
      lastTransitionTime: T0,
    };
    const result = setStatusCondition([degraded, ready], { ...withoutTime, status: 'True' }, at(T1));
    expect(result.conditions).toStrictEqual([degraded, { ...ready, status: 'True', lastTransitionTime: T1 }]);
  });

  it('formats the default clock with second precision', () => {
    const result = setStatusCondition([], { type: 'Ready', status: 'True', reason: 'Up', message: '' });
    expect(result.conditions[0]?.lastTransitionTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});

describe('removeStatusCondition', () => {
  it('removes a present type', () => {
    const input = [ready];
    expect(removeStatusCondition(input, 'Ready')).toStrictEqual({ conditions: [], changed: true });
    expect(input).toStrictEqual([ready]);
  });

  it('reports no change for an absent type', () => {
    expect(removeStatusCondition([ready], 'Degraded')).toStrictEqual({ conditions: [ready], changed: false });
    expect(removeStatusCondition(undefined, 'Ready')).toStrictEqual({ conditions: [], changed: false });
  });
});

describe('condition queries', () => {
  it('finds a condition by type', () => {
    expect(findStatusCondition([ready], 'Ready')).toStrictEqual(ready);
    expect(findStatusCondition([ready], 'Degraded')).toBeUndefined();
    expect(findStatusCondition(undefined, 'Ready')).toBeUndefined();
  });

  it('tests the status of a condition', () => {
    expect(isStatusConditionTrue([ready], 'Ready')).toBe(false);
    expect(isStatusConditionFalse([ready], 'Ready')).toBe(true);
    expect(isStatusConditionPresentAndEqual([ready], 'Ready', 'False')).toBe(true);
    expect(isStatusConditionPresentAndEqual([ready], 'Ready', 'Unknown')).toBe(false);
    // an absent condition is neither true nor false
    expect(isStatusConditionTrue([], 'Ready')).toBe(false);
    expect(isStatusConditionFalse([], 'Ready')).toBe(false);
  });
});
