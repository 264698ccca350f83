"""Regenerates test/bundle/corpus/<case>/expected.json from the upstream harness (see README.md).

Usage (from libs/olm): HARNESS=/path/to/harness python3 test/bundle/upstream-harness/expected.py [case ...]
A case without expected.json needs a .case.json with {"description": ..., "selectOptional": ...}.
Hand edits (patterns for Go pointer values and map-ordered messages, the "opkit" block) are kept only when
the case is not regenerated.
"""
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', 'corpus'))
CWD = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
REL = os.path.relpath(ROOT, CWD)
HARNESS = os.environ.get('HARNESS', 'harness')
# The order operator-sdk runs the suite=operatorframework validators in (and opkit's registry order).
SELECT = {'suite=operatorframework': 'operatorhubv2,capabilities,categories,alpha-deprecated-apis,good-practices'}

only = sys.argv[1:]
for case in sorted(os.listdir(ROOT)):
    if only and case not in only:
        continue
    d = os.path.join(ROOT, case)
    meta_path = os.path.join(d, '.case.json')
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else json.load(open(os.path.join(d, 'expected.json')))['meta']
    rel = f'{REL}/{case}'
    args = [HARNESS]
    if meta.get('selectOptional'):
        args += ['--select', SELECT[meta['selectOptional']]]
    k8s = (meta.get('optionalValues') or {}).get('k8s-version')
    if k8s:
        args += ['--k8s-version', k8s]
    res = json.loads(subprocess.run(args + [rel], cwd=CWD, capture_output=True, text=True, check=True).stdout)
    sub = lambda s: s.replace(rel, '<bundle>')
    expected = {'meta': meta, 'passed': res['passed']}
    if res.get('fatal'):
        expected['fatal'] = sub(res['fatal'])
    problems, fmt = [], []
    for o in res['outputs'] or []:
        msg = sub(o['message'])
        m = re.match(r'^error validating format in <bundle>: Bundle validation errors: (.*)$', msg, re.S)
        if m:
            fmt = m.group(1).split(',')
            continue
        problems.append({'level': o['type'], 'message': msg})
    if fmt:
        expected['format'] = fmt
    expected['problems'] = problems
    with open(os.path.join(d, 'expected.json'), 'w') as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write('\n')
    if os.path.exists(meta_path):
        os.remove(meta_path)
    print(case, 'passed' if res['passed'] else 'failed', len(problems), 'problems')
