#!/usr/bin/env python3
"""Fails when a function of a built program can return to code compiled without AVX with
the upper halves of ymm0-15/zmm0-15 still in use ("dirty").

Why: the kernels are compiled for AVX2 or AVX-512 by target attributes inside TUs that
are not (a driver's build rarely has -march). On Intel cores, SSE instructions that run
while the upper halves are dirty each pay a merge with them, and the AVX code that reads
their results waits on it: a float32 3x3 depthwise convolution whose per-pass function
returned dirty into its generic row loop took 0.41 ms instead of 0.18 (112x112x32, one
core). Compilers end such functions with vzeroupper, but GCC 12 leaves it out after a
call to a function that takes vector arguments (it assumes the callee cleared the state,
while the callee, having vector arguments, does not).

How: objdump -d of the program; per function, a forward data-flow over its basic blocks
of "may be dirty" (set by an instruction naming ymm0-15 or zmm0-15, cleared by
vzeroupper/vzeroall, set after a direct call to a function found dirty at return; an
indirect jump, a switch's table, may reach any block), to a fixed point over all
functions. It reports each function that may return dirty and is
called directly by a function that uses no ymm/zmm register at all (compiled without
AVX). Returning dirty into AVX code is fine: the caller's own exit is checked.

Usage: check_vzeroupper.py PROGRAM...   (exit 0: none found; 1: found, listed; 2: bad use)
"""
import collections
import re
import shutil
import subprocess
import sys

LOW_VECTOR = re.compile(r'%[yz]mm(?:1[0-5]|[0-9])(?![0-9])')
ANY_VECTOR = re.compile(r'%[yz]mm[0-9]')
FUNC = re.compile(r'^([0-9a-f]+) <(.+)>:$')
INSN = re.compile(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$')
TARGET = re.compile(r'^([0-9a-f]+) <(.+?)(?:\+0x[0-9a-f]+)?>')


def parse(program):
    text = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-w', program], capture_output=True, text=True,
                          check=True).stdout
    funcs, current = {}, None
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            current = funcs.setdefault(m.group(2), [])
            continue
        m = INSN.match(line)
        if m and current is not None:
            current.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def returns_dirty(insns, dirty_funcs):
    """Whether some path of the function reaches a ret (or a tail jump out) dirty."""
    addrs = [a for a, _, _ in insns]
    index = {a: i for i, a in enumerate(addrs)}
    # Basic-block leaders: the entry, jump targets inside the function, insns after jumps.
    leaders = {0}
    for i, (_, op, args) in enumerate(insns):
        if op.startswith('j') or op.startswith('ret'):
            if i + 1 < len(insns):
                leaders.add(i + 1)
            t = TARGET.match(args)
            if t and int(t.group(1), 16) in index:
                leaders.add(index[int(t.group(1), 16)])
    starts = sorted(leaders)
    block_of = {}
    for b, s in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else len(insns)
        for i in range(s, end):
            block_of[i] = b
    dirty_in = [False] * len(starts)
    visited = {0}
    work = collections.deque([0])
    while work:
        b = work.popleft()
        s = starts[b]
        end = starts[b + 1] if b + 1 < len(starts) else len(insns)
        d = dirty_in[b]
        succ = []
        falls = True
        for i in range(s, end):
            _, op, args = insns[i]
            if op in ('vzeroupper', 'vzeroall'):
                d = False
            elif LOW_VECTOR.search(args):
                d = True
            if op.startswith('call'):
                t = TARGET.match(args)
                if t and t.group(2) in dirty_funcs:
                    d = True
            elif op.startswith('ret'):
                if d:
                    return True
                falls = False
            elif op.startswith('j'):
                t = TARGET.match(args)
                if args.startswith('*'):  # a jump table: any block may follow
                    succ.extend(range(len(starts)))
                elif t and int(t.group(1), 16) in index:
                    succ.append(block_of[index[int(t.group(1), 16)]])
                elif op == 'jmp' and d:  # a tail call leaves dirty
                    return True
                if op == 'jmp':
                    falls = False
        if falls and end < len(insns):
            succ.append(block_of[end])
        for n in succ:
            if n not in visited:
                visited.add(n)
                dirty_in[n] = d
                work.append(n)
            elif d and not dirty_in[n]:
                dirty_in[n] = True
                work.append(n)
    return False


def check(program):
    """The functions of `program` that return dirty to code without AVX, with their callers."""
    funcs = parse(program)
    avx = {f for f, insns in funcs.items() if any(ANY_VECTOR.search(a) for _, _, a in insns)}
    dirty = set()
    changed = True
    while changed:
        changed = False
        for f in avx - dirty:
            if returns_dirty(funcs[f], dirty):
                dirty.add(f)
                changed = True
    callers = collections.defaultdict(set)
    for f, insns in funcs.items():
        if f in avx:
            continue
        for _, op, args in insns:
            if op.startswith('call') or op == 'jmp':
                t = TARGET.match(args)
                if t and t.group(2) in dirty:
                    callers[t.group(2)].add(f)
    return len(avx), callers


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for tool in ('objdump', 'c++filt'):
        if not shutil.which(tool):
            print(f'check_vzeroupper: {tool} not found', file=sys.stderr)
            return 2
    found = False
    for program in sys.argv[1:]:
        avx, callers = check(program)
        if not callers:
            print(f'check_vzeroupper: {program}: {avx} functions use ymm/zmm; none returns dirty to code without AVX')
            continue
        found = True
        names = subprocess.run(['c++filt'], input='\n'.join(sorted(callers)), capture_output=True, text=True).stdout
        print(f'check_vzeroupper: {program}: {len(callers)} functions return with the upper vector state dirty to '
              'code compiled without AVX (end them with vzeroupper: a simd::upper_clean first in their body):')
        for mangled, name in zip(sorted(callers), names.splitlines()):
            print(f'  {name[:240]}\n    called from: {", ".join(sorted(callers[mangled]))[:200]}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
