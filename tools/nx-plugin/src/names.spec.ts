import { describe, expect, it } from 'vitest';
import { kindNames, operatorNames, parseApi, pluralize } from './names.js';

describe('names', () => {
  it('spells an operator name for the project, the OLM package and the code', () => {
    expect(operatorNames('postgres-lite')).toEqual({
      name: 'postgres-lite',
      packageName: 'postgres-lite-operator',
      className: 'PostgresLite',
      displayName: 'Postgres Lite Operator',
    });
    expect(operatorNames('PostgresLite').packageName).toBe('postgres-lite-operator');
    expect(operatorNames('cache-operator').name).toBe('cache');
  });

  it('spells a kind for files, variables and the CRD, with the English plural', () => {
    expect(kindNames('WidgetSet')).toEqual({
      kind: 'WidgetSet',
      lower: 'widgetset',
      plural: 'widgetsets',
      fileName: 'widget-set',
      propertyName: 'widgetSet',
      constantName: 'WIDGET_SET',
      displayName: 'Widget Set',
    });
    expect(kindNames('HTTPRoute').fileName).toBe('http-route');
    expect(['policy', 'class', 'box', 'day', 'mesh'].map(pluralize)).toEqual([
      'policies',
      'classes',
      'boxes',
      'days',
      'meshes',
    ]);
    expect(kindNames('Octopus', 'octopi').plural).toBe('octopi');
  });

  it('reads <group>/<version>/<Kind>', () => {
    expect(parseApi('cache.example.com/v1beta2/Memcached')).toEqual({
      group: 'cache.example.com',
      version: 'v1beta2',
      kind: 'Memcached',
    });
    expect(() => parseApi('cache.example.com/Memcached')).toThrow(/give <group>\/<version>\/<Kind>/);
  });
});
