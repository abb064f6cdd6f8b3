#!/usr/bin/python3
"""Coverage of six.c from the gcov counters of a torture-coverage run.

usage: torture/coverage.py RUN_DIR

RUN_DIR holds six.gcno and six.c (what the counters describe) and
torture/SCENARIO/guest/six.gcda, one per boot.  gcov (gcc's, --json-format)
reads each boot's counters; the counts of every boot are summed here, line
by line and branch by branch, so a line is covered when any scenario ran
it.  Writes RUN_DIR/coverage.txt (key=value), uncovered.txt (every line,
branch and function no scenario ran, with its source, and the reason it
cannot run under torture where torture/coverage-unreachable gives one)
and per-scenario.txt.
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

REASONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'coverage-unreachable')


def reasons():
    """(substring, reason) pairs: an unrun item whose line contains the
    substring cannot run under torture, for that reason."""
    out = []
    for line in open(REASONS):
        if line.strip() and not line.startswith('#'):
            pat, _tab, why = line.rstrip('\n').partition('\t')
            out.append((pat, why.strip()))
    return out


def gcov_json(gcno, gcda):
    """gcov's JSON for six.c's counters in GCDA."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(gcno, os.path.join(tmp, 'six.gcno'))
        shutil.copy(gcda, os.path.join(tmp, 'six.gcda'))
        subprocess.run(['gcov', '--json-format', '--branch-probabilities',
                        '--branch-counts', '--object-directory', tmp, 'six.c'],
                       cwd=tmp, check=True, capture_output=True)
        out = glob.glob(os.path.join(tmp, '*.gcov.json.gz'))
        if len(out) != 1:
            raise SystemExit(f'gcov wrote {out} for {gcda}')
        with gzip.open(out[0], 'rt') as f:
            return json.load(f)


def six_file(doc):
    """The entry of six.c itself (headers inlined into it have their own)."""
    files = [f for f in doc['files'] if f['file'].endswith('/six.c')]
    if len(files) != 1:
        raise SystemExit('gcov output has no single entry for six.c')
    return files[0]


class Counts:
    """Counts of one or more boots, keyed so that boots add up."""

    def __init__(self):
        self.lines = {}      # line -> count
        self.branches = {}   # (function, line, index) -> count
        self.functions = {}  # name -> (start_line, count)

    def add(self, f):
        for ln in f['lines']:
            n = ln['line_number']
            self.lines[n] = self.lines.get(n, 0) + ln['count']
            for i, b in enumerate(ln.get('branches', [])):
                key = (ln.get('function_name', ''), n, i)
                self.branches[key] = self.branches.get(key, 0) + b['count']
        for fn in f['functions']:
            name = fn['demangled_name'] or fn['name']
            start, c = self.functions.get(name, (fn['start_line'], 0))
            self.functions[name] = (start, c + fn['execution_count'])

    def summary(self):
        def pct(hit, total):
            return f'{100.0 * hit / total:.1f}' if total else 'nan'
        lh = sum(1 for c in self.lines.values() if c)
        bh = sum(1 for c in self.branches.values() if c)
        fh = sum(1 for _, c in self.functions.values() if c)
        lt, bt, ft = len(self.lines), len(self.branches), len(self.functions)
        return {'lines_hit': lh, 'lines_total': lt, 'lines_pct': pct(lh, lt),
                'branches_hit': bh, 'branches_total': bt, 'branches_pct': pct(bh, bt),
                'functions_hit': fh, 'functions_total': ft, 'functions_pct': pct(fh, ft)}


def unrun(total, source):
    """Every function, line and branch that no boot ran, in source order, as
    (kind, how many, text): a branch item stands for its line's unrun arms."""
    def src(n):
        return source[n - 1].strip() if 0 < n <= len(source) else '?'
    items = [('functions', 1, f'function {name} (line {start}): never called')
             for name, (start, c) in self_sorted(total.functions) if not c]
    items += [('lines', 1, f'line {n}: never run: {src(n)}') for n in sorted(total.lines) if not total.lines[n]]
    by_line = {}
    for (fn, n, i), c in total.branches.items():
        by_line.setdefault((n, fn), []).append((i, c))
    for (n, fn), bs in sorted(by_line.items()):
        missed = [i for i, c in sorted(bs) if not c]
        if missed and total.lines.get(n):
            items.append(('branches', len(missed),
                          f'line {n}: branch {",".join(map(str, missed))} of {len(bs)} never taken'
                          f' (in {fn}): {src(n)}'))
    return items


def write_atomic(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as out:
        out.write(text)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[2])
    run = sys.argv[1]
    gcno = os.path.join(run, 'six.gcno')
    boots = sorted(glob.glob(os.path.join(run, 'torture', '*', 'guest', 'six.gcda')))
    if not boots:
        raise SystemExit(f'no six.gcda under {run}/torture: was the kernel built with gcov?')
    with open(os.path.join(run, 'six.c')) as f:
        source = f.read().splitlines()
    total = Counts()
    per = []
    for gcda in boots:
        f = six_file(gcov_json(gcno, gcda))
        one = Counts()
        one.add(f)
        total.add(f)
        per.append((gcda.split(os.sep)[-3], one.summary()))
    known = reasons()
    lines, explained = [], {'functions': 0, 'lines': 0, 'branches': 0}
    for kind, n, item in unrun(total, source):
        why = next((w for p, w in known if p in item), None)
        if why:
            explained[kind] += n
        lines.append(item + (f' [not reachable under torture: {why}]' if why else ''))
    summary = dict(boots=len(boots), **total.summary(), unrun_items=len(lines),
                   explained=sum(1 for x in lines if '[not reachable' in x))
    # Coverage of what can run: the unrun items with a reason left out.
    for kind in explained:
        hit, tot = summary[kind + '_hit'], summary[kind + '_total'] - explained[kind]
        summary[kind + '_unreachable'] = explained[kind]
        summary[kind + '_reachable_pct'] = f'{100.0 * hit / tot:.1f}' if tot else 'nan'
    write_atomic(os.path.join(run, 'uncovered.txt'), ''.join(x + '\n' for x in lines))
    write_atomic(os.path.join(run, 'per-scenario.txt'),
                 'scenario lines_pct branches_pct functions_pct\n' +
                 ''.join(f"{name} {o['lines_pct']} {o['branches_pct']} {o['functions_pct']}\n" for name, o in per))
    write_atomic(os.path.join(run, 'coverage.txt'), ''.join(f'{k}={v}\n' for k, v in summary.items()))


def self_sorted(functions):
    """Functions as (name, (start, count)) in source order."""
    return sorted(functions.items(), key=lambda kv: kv[1][0])


if __name__ == '__main__':
    main()
