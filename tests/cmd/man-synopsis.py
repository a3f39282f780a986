#!/usr/bin/env python3
"""The SYNOPSIS of a man page as plain text, one line per form (a form
starts with a ".B tide ..." line): the fonts, \\c joins and .br breaks of
troff gone, whitespace collapsed.  tests/cmd/t0010 compares it with the
usage lines of "tide COMMAND -h"."""
import re, sys

def args(s):
    out=[]; i=0
    while i < len(s):
        if s[i].isspace(): i+=1; continue
        if s[i]=='"':
            j=s.find('"', i+1); j = len(s) if j<0 else j
            out.append(s[i+1:j]); i=j+1
        else:
            j=i
            while j<len(s) and not s[j].isspace(): j+=1
            out.append(s[i:j]); i=j
    return out
forms=[]; cur=None; insyn=False
for line in open(sys.argv[1]):
    line=line.rstrip('\n')
    if line.startswith('.SH'):
        insyn = line.split(None,1)[1:] == ['SYNOPSIS']; continue
    if not insyn: continue
    m=re.match(r'\.(B|I|R|BR|RB|IR|RI|BI|IB)(\s+(.*))?$', line)
    if line in ('.br','.PP','.sp'): continue
    if m:
        a=args(m.group(3) or '')
        text=(' ' if len(m.group(1))==1 else '').join(a)
        if m.group(1)=='B' and text.startswith('tide '):
            cur=[]; forms.append(cur)
    else:
        text=line
    cur.append(text)
for f in forms:
    s=' '.join(f)
    s=re.sub(r'\\c\s+','',s)
    s=re.sub(r'\\f[BIRP]','',s)
    s=s.replace('\\-','-').replace('\\&','').replace('\\ ',' ')
    print(' '.join(s.split()))
