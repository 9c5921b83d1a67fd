#!/usr/bin/env python3
"""Wraps comment prose over 100 characters (biome's lineWidth, which biome does not apply to comments).

Usage: python3 scripts/wrap-comments.py $(git ls-files '*.ts')
Reflows only a paragraph that holds a line over 100 characters: a run of comment lines (`/** ... */` block or
`//`) with the same prefix, broken at blank lines, list items (- , 1. ), @tags, tables and code fences; words are
never split, so file:line citations stay whole. A one-line `/** ... */` over the width becomes a block. Check the
result is comments only: transpile before and after with removeComments and compare (a `//` line inside a template
string is text, not a comment: look at such hunks).
"""
import re, sys
W = 100
MARK = re.compile(r'^(- |\d+\. |• )')
def reflow(first_prefix, cont_prefix, words):
    lines, cur, prefix = [], '', first_prefix
    for w in words:
        if cur and len(prefix) + len(cur) + 1 + len(w) > W:
            lines.append(prefix + cur); cur, prefix = w, cont_prefix
        else:
            cur = w if not cur else cur + ' ' + w
    if cur: lines.append(prefix + cur)
    return lines
def process(text):
    src = text.split('\n'); out = []; i = 0; in_block = False
    while i < len(src):
        line = src[i]
        m1 = re.match(r'^(\s*)/\*\* (.*) \*/$', line)
        if not in_block and m1 and len(line) > W and '`' not in m1.group(2)[:0]:
            ind = m1.group(1)
            out.append(ind + '/**'); out += reflow(ind + ' * ', ind + ' * ', m1.group(2).split()); out.append(ind + ' */'); i += 1; continue
        stripped = line.strip()
        if not in_block and stripped.startswith('/*') and '*/' not in stripped:
            in_block = True; out.append(line); i += 1; continue
        if in_block:
            if '*/' in line:
                in_block = False; out.append(line); i += 1; continue
            kind = 'block'
            m = re.match(r'^(\s*\* )(\s*)(.*)$', line)
        else:
            kind = 'line'
            m = re.match(r'^(\s*// )(\s*)(.*)$', line)
        if not m or '```' in line:
            out.append(line); i += 1; continue
        # a paragraph starting here
        base, extra, content = m.groups()
        mk = MARK.match(content)
        first_prefix = base + extra
        cont_prefix = base + extra + (' ' * len(mk.group(1)) if mk else '')
        para = [line]; words = content.split(); j = i + 1
        while j < len(src):
            nl = src[j]
            if kind == 'block' and '*/' in nl: break
            if '```' in nl: break
            if not nl.startswith(cont_prefix): break
            rest = nl[len(cont_prefix):]
            if not rest.strip() or rest[0] == ' ' or MARK.match(rest) or rest.startswith('@') or rest.startswith('|'): break
            para.append(nl); words += rest.split(); j += 1
        if any(len(l) > W for l in para) and not any('|' in l and l.count('|') > 1 for l in para):
            new = reflow(first_prefix, cont_prefix, words)
            if all(len(l) <= W or ' ' not in l[len(cont_prefix):] for l in new):
                out += new; i = j; continue
        out += para; i = j
    return '\n'.join(out)
for path in sys.argv[1:]:
    t = open(path).read(); n = process(t)
    if n != t: open(path, 'w').write(n); print(path)
