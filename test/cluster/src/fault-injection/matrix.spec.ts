import { describe, expect, it } from 'vitest';
import type { ApiProxy, ProxiedWrite } from './api-proxy.js';
import {
  cellId,
  cellOrder,
  type FaultCell,
  type FaultMatrixReport,
  formatMatrix,
  operatorOutput,
  plannedSteps,
  reachedShare,
  runFaultMatrix,
  selectsCell,
} from './matrix.js';
import { OperatorProcess } from './operator-process.js';

describe('plannedSteps', () => {
  it('plans every step when the plan has no sample', () => {
    expect(plannedSteps({ fault: 'crash' }, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('plans every sample-th step from the first', () => {
    expect(plannedSteps({ fault: 'watch-delay', sample: 3 }, 7)).toEqual([1, 4, 7]);
  });

  it('always plans the last step, even off the sample', () => {
    expect(plannedSteps({ fault: 'api-restart', sample: 3 }, 8)).toEqual([1, 4, 7, 8]);
    expect(plannedSteps({ fault: 'watch-reorder', sample: 5 }, 2)).toEqual([1, 2]);
  });

  it('plans the one step of a one-write operation once', () => {
    expect(plannedSteps({ fault: 'api-restart', sample: 3 }, 1)).toEqual([1]);
  });

  it('plans nothing for an operation without writes', () => {
    expect(plannedSteps({ fault: 'crash' }, 0)).toEqual([]);
    expect(plannedSteps({ fault: 'watch-delay', sample: 3 }, 0)).toEqual([]);
  });

  it('takes a sample below one as every step', () => {
    expect(plannedSteps({ fault: 'crash', sample: 0 }, 3)).toEqual([1, 2, 3]);
  });
});

describe('cellOrder', () => {
  const cells = [
    ['out-1', 'out-2', 'out-3'],
    ['in-1', 'in-2', 'in-3'],
  ];

  it('runs the cells operation by operation unless told to interleave', () => {
    expect(cellOrder(cells, false)).toEqual(['out-1', 'out-2', 'out-3', 'in-1', 'in-2', 'in-3']);
  });

  it('interleaved, runs one cell of each operation in turn, so a scale out follows each scale in', () => {
    expect(cellOrder(cells, true)).toEqual(['out-1', 'in-1', 'out-2', 'in-2', 'out-3', 'in-3']);
  });

  it('interleaved, runs every cell once when operations have different numbers of cells', () => {
    expect(cellOrder([['a-1', 'a-2', 'a-3'], [], ['c-1']], true)).toEqual(['a-1', 'c-1', 'a-2', 'a-3']);
    expect(cellOrder([], true)).toEqual([]);
  });
});

describe('runFaultMatrix', () => {
  /**
   * One object that a scale out takes from 6 to 8 and a scale in back, each operation making three writes;
   * `prepare` notes whether it found the object where its operation starts or had to undo the cell before.
   */
  const scaleMatrix = async (interleave: boolean) => {
    let size = 6;
    const writes: ProxiedWrite[] = [];
    // Only what the matrix uses of a proxy: its numbered writes, re-armed per cell. No fault is ever
    // injected (no write passes an armed hook), so every planned cell runs and reports `skip`.
    const proxy = {
      get writes() {
        return writes;
      },
      arm: () => writes.splice(0),
    } as unknown as ApiProxy;
    const prepared: string[] = [];
    const scale = (name: string, from: number, to: number) => ({
      name,
      prepare: async () => {
        prepared.push(`${name} ${size === from ? 'ready' : 'undoing'}`);
        size = from;
      },
      act: async () => {
        size = to;
        for (let step = 1; step <= 3; step++)
          writes.push({ step, method: 'PATCH', path: '/x', status: 200, at: Date.now(), unanswered: false });
      },
      check: async () => (size === to ? [] : [`size ${size}`]),
    });
    const report = await runFaultMatrix({
      operations: [scale('out', 6, 8), scale('in', 8, 6)],
      faults: [{ fault: 'crash', sample: 2 }],
      proxy,
      operator: () =>
        new OperatorProcess({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }),
      restartApiServer: async () => {},
      interleave,
    });
    return { order: report.cells.map(cellId), prepared, failed: report.failed };
  };

  it('runs the cells operation by operation, each scale first undoing the one before', async () => {
    const { order, prepared, failed } = await scaleMatrix(false);
    expect(failed).toEqual([]);
    expect(order).toEqual([
      'out:none:0',
      'out:crash:1',
      'out:crash:3',
      'in:none:0',
      'in:crash:1',
      'in:crash:3',
    ]);
    expect(prepared.filter((p) => p.endsWith('undoing'))).toHaveLength(4);
  });

  it('interleaved, runs the clean runs first and then one cell of each operation in turn, none undoing another', async () => {
    const { order, prepared, failed } = await scaleMatrix(true);
    expect(failed).toEqual([]);
    expect(order).toEqual([
      'out:none:0',
      'in:none:0',
      'out:crash:1',
      'in:crash:1',
      'out:crash:3',
      'in:crash:3',
    ]);
    expect(prepared).toEqual(['out ready', 'in ready', 'out ready', 'in ready', 'out ready', 'in ready']);
  });
});

describe('cellId', () => {
  it('names a cell as FAULT_CELL selects it', () => {
    expect(cellId({ operation: 'resize', fault: 'watch-reorder', step: 4 })).toBe('resize:watch-reorder:4');
  });
});

describe('selectsCell', () => {
  const cell = { operation: 'restart', fault: 'crash', step: 12 } as const;

  it('selects one cell by its id, as formatMatrix prints it', () => {
    expect(selectsCell(cellId(cell), cell)).toBe(true);
    expect(selectsCell('restart:crash:13', cell)).toBe(false);
    expect(selectsCell('restart:api-restart:12', cell)).toBe(false);
  });

  it('selects ranges of steps and any operation or fault, so a long matrix runs in parts', () => {
    expect(selectsCell('restart:crash:1-40', cell)).toBe(true);
    expect(selectsCell('restart:crash:13-40', cell)).toBe(false);
    expect(selectsCell('*:*:12', cell)).toBe(true);
    expect(selectsCell('restart:*:*', cell)).toBe(true);
    expect(selectsCell('scale-in:*:*, restart:crash:12', cell)).toBe(true);
    expect(selectsCell('scale-in:*:*', cell)).toBe(false);
  });

  it('selects nothing with a step that is not a number or a range', () => {
    expect(selectsCell('restart:crash:x', cell)).toBe(false);
    expect(selectsCell('restart:crash:', cell)).toBe(false);
  });
});

describe('formatMatrix', () => {
  const cell = (fields: Partial<FaultCell> & Pick<FaultCell, 'fault' | 'step'>): FaultCell => ({
    operation: 'create',
    after: '',
    problems: [],
    reached: true,
    writes: 5,
    summary: 'PATCH memcacheds/m/status 200 ×5',
    durationMs: 1000,
    prepareMs: 0,
    ...fields,
  });
  const failing = cell({
    fault: 'watch-reorder',
    step: 2,
    after: 'POST apps/v1/namespaces/ns/deployments (201)',
    problems: ['2 creations through /apis/apps/v1/namespaces/ns/deployments'],
    durationMs: 4200,
  });
  const report: FaultMatrixReport = {
    cells: [
      cell({ fault: 'none', step: 0 }),
      cell({
        fault: 'crash',
        step: 1,
        after: 'PUT cache.example.com/v1beta1/namespaces/ns/memcacheds/m (200)',
      }),
      failing,
      cell({ fault: 'api-restart', step: 5, reached: false, writes: 4 }),
    ],
    steps: { create: 5 },
    durationMs: 12_345,
    failed: [failing],
  };
  const lines = formatMatrix(report).split('\n');

  it('prints one line per cell under a header, with its result, time and the write the fault followed', () => {
    expect(lines[0]).toMatch(/^operation\s+fault\s+step\s+res\s+time\s+after write$/);
    expect(lines.slice(1, 5)).toEqual([
      'create     none            0  ok     1.0 s  ',
      'create     crash           1  ok     1.0 s  PUT cache.example.com/v1beta1/namespaces/ns/memcacheds/m (200)',
      'create     watch-reorder   2  FAIL   4.2 s  POST apps/v1/namespaces/ns/deployments (201)',
      'create     api-restart     5  skip   1.0 s  ',
    ]);
  });

  it('sums up the cells, the failed, the skipped and the time', () => {
    expect(lines[5]).toBe('4 cells, 1 failed, 1 skipped (fewer writes than the clean run), 12.3 s');
  });

  it('counts the cells that reached their step, leaving out those at the clean run last write', () => {
    // The clean run and steps 1 and 2 reached; step 5 is the clean run's last write, so its skip is not counted.
    expect(reachedShare(report)).toBe(1);
    const shorter = { ...report, steps: { create: 6 } };
    expect(reachedShare(shorter)).toBe(3 / 4);
  });

  it('lists each failing cell with its problems and how to run it alone', () => {
    expect(lines.slice(6)).toEqual([
      'FAIL create:watch-reorder:2: 2 creations through /apis/apps/v1/namespaces/ns/deployments',
      '  re-run this cell alone: FAULT_CELL=create:watch-reorder:2',
    ]);
  });
});

describe('operatorOutput', () => {
  const run = async (script: string): Promise<string[]> => {
    const operator = new OperatorProcess({ command: process.execPath, args: ['-e', script] });
    operator.start();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await operator.kill();
    return operatorOutput(operator);
  };

  it("ends a failing cell's problems with the operator's last lines, labelled", async () => {
    expect(await run("console.log('reconcile failed'); console.log('timeout')")).toEqual([
      "the operator's last output:\nreconcile failed\ntimeout",
    ]);
  });

  it('adds nothing when the operator printed nothing', async () => {
    expect(await run('')).toEqual([]);
  });
});
