import { describe, expect, it } from 'vitest';
import { crc16, evenShare, formatRanges, keySlot, parseClusterNodes, parseInfo, SLOTS } from './cluster.js';

describe('hash slots', () => {
  it('hashes as Redis Cluster does (CRC16-XMODEM mod 16384, hash tags)', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}'));
    expect(keySlot('{}foo')).toBe(crc16(Buffer.from('{}foo')) % SLOTS);
  });

  it('splits the slots evenly and prints ranges', () => {
    expect([0, 1, 2].map((i) => evenShare(i, 3))).toEqual([
      [0, 5460],
      [5461, 10921],
      [10922, 16383],
    ]);
    expect(formatRanges([0, 1, 2, 5, 7, 8])).toBe('0-2 5 7-8');
  });
});

describe('parseClusterNodes', () => {
  it('reads roles, addresses, slots and open slots', () => {
    const nodes = parseClusterNodes(
      [
        'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.7.0.2:6379@16379 myself,master - 0 0 1 connected 0-5460 [5461->-292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f]',
        '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.7.0.3:6379@16379,cache-1 master - 0 1426238316232 2 connected 5461-10922 [5461-<-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]',
        '67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.7.0.4:6379@16379 slave 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238316232 2 connected',
        '07c37dfeb235213a872192d90877d0cd55635b91 :0@0 master,fail,noaddr - 1426238317239 1426238316232 0 disconnected',
      ].join('\n'),
    );
    expect(nodes).toHaveLength(4);
    expect(nodes[0]).toMatchObject({
      myself: true,
      role: 'primary',
      ip: '127.7.0.2',
      address: '127.7.0.2:6379',
    });
    expect(nodes[0]!.slots).toHaveLength(5461);
    expect([...nodes[0]!.migrating]).toEqual([[5461, '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f']]);
    expect([...nodes[1]!.importing]).toEqual([[5461, 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca']]);
    expect(nodes[1]!.address).toBe('127.7.0.3:6379');
    expect(nodes[2]).toMatchObject({
      role: 'replica',
      primaryId: '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f',
    });
    expect(nodes[3]).toMatchObject({ failing: true, connected: false, address: '' });
  });

  it('reads CLUSTER INFO', () => {
    expect(parseInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n')).toEqual({
      cluster_state: 'ok',
      cluster_slots_assigned: '16384',
    });
  });
});
