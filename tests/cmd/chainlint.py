#!/usr/bin/env python3
"""Find the commands of a test body whose failure would be lost.

Usage: chainlint.py < BODY   (exit 0: clean; 1: each problem on stdout)

lib.sh runs a body in a subshell with `set -e`.  A command that fails on a
line of its own then stops the body, but the shell ignores set -e in some
places, and a failure there goes unnoticed:
  - inside an &&-chain: `a && b` stops at a failing `a` and goes on with
    the next line, so an &&-chain must be the last command of the body
    (or of a branch or block that is), or end with `|| ...`;
  - on the left of && or ||, and in a function: set -e is off for all of
    it, so its commands must be joined with && (`a; b && c` loses a's
    failure);
  - in a loop: only the last pass's status is kept, so an &&-chain in a
    loop ends with `|| exit 1`;
  - `! cmd` on a line of its own (set -e ignores `!`).
Not flagged: a command whose status the next one reads (`cmd; rc=$?`),
messages and assignments (echo, printf, `x=word`), a list that ends
failing anyway (`{ cat err; exit 1; }`) or says its status does not
matter (`...; true`), `cmd || true`.  The shell's grammar comes from shfmt
(its JSON syntax tree); conditions (if, while), command substitutions and
the producers of a pipe are not checked.
"""
import json
import subprocess
import sys

AND, OR, PIPE, PIPEALL = 10, 11, 12, 13

# Where a statement sits: its failure reaches the body's status (TAIL);
# set -e stops the body but the statement's own status is dropped (PLAIN);
# set -e is off (STRICT); not checked (OFF).
TAIL, PLAIN, STRICT, OFF = "tail", "plain", "strict", "off"


class Lint:
    def __init__(self, text):
        self.text = text.encode()
        self.problems = []

    def flag(self, node, why):
        start = node["Pos"]["Offset"]
        line = node["Pos"]["Line"]
        end = self.text.find(b"\n", start)
        src = self.text[start:end if end >= 0 else len(self.text)].decode(errors="replace")
        self.problems.append("line %d: %s\n    %s" % (line, why, src.strip()))

    def stmts(self, stmts, ctx):
        stmts = stmts or []
        # A list that ends failing anyway (`{ cat err; exit 1; }`) or says
        # its commands' status does not matter (`...; true`) is not checked.
        loose = bool(stmts) and (fails(stmts[-1]) or first_word(stmts[-1]) in (":", "true"))
        for i, st in enumerate(stmts):
            last = i == len(stmts) - 1
            if ctx == OFF:
                sub = OFF
            elif ctx == STRICT:
                sub = STRICT
                if not (last or loose or harmless(st) or self.reads_status(stmts[i + 1])):
                    self.flag(st, "not joined to the next command with &&, where set -e "
                              "is off (left of && or ||, or in a function): its failure is lost")
            elif ctx == TAIL:
                sub = TAIL if last else PLAIN
            else:
                sub = PLAIN
            if sub == PLAIN and not last and self.reads_status(stmts[i + 1]):
                sub = OFF   # `a && b; rc=$?`: the status is kept
            self.stmt(st, sub)

    def stmt(self, st, ctx):
        if st.get("Background"):
            ctx = OFF
        cmd = st.get("Cmd")
        if cmd is None:
            return
        if st.get("Negated") and ctx == PLAIN:
            self.flag(st, "`!` on a line of its own does not stop the body (set -e "
                      "ignores it): chain it with && or use test_must_fail")
        kind = cmd.get("Type")
        if kind == "BinaryCmd":
            op = cmd["Op"]
            if op in (AND, OR):
                if op == AND and ctx == PLAIN:
                    self.flag(st, "an &&-chain followed by another command: a failure "
                              "before its last command is lost (join with &&, or in a "
                              "loop end it with || exit 1)")
                    ctx = OFF   # one report for the chain
                self.stmt(cmd["X"], OFF if ctx == OFF else STRICT)
                self.stmt(cmd["Y"], ctx)
            else:
                self.stmt(cmd["X"], OFF)
                self.stmt(cmd["Y"], ctx)
        elif kind == "IfClause":
            self.if_clause(cmd, ctx)
        elif kind in ("WhileClause", "ForClause"):
            if kind == "WhileClause":
                self.stmts(cmd.get("Cond"), OFF)
            self.stmts(cmd.get("Do"), ctx if ctx in (STRICT, OFF) else PLAIN)
        elif kind == "CaseClause":
            for item in cmd.get("Items") or []:
                self.stmts(item.get("Stmts"), ctx)
        elif kind == "Block":
            self.stmts(cmd.get("Stmts"), ctx)
        elif kind == "Subshell":
            # set -e stops the subshell, and its status reaches the parent.
            self.stmts(cmd.get("Stmts"), TAIL if ctx in (TAIL, PLAIN) else ctx)
        elif kind == "FuncDecl":
            self.stmt(cmd["Body"], STRICT)
        elif kind == "TimeClause" and cmd.get("Stmt"):
            self.stmt(cmd["Stmt"], ctx)

    def if_clause(self, cmd, ctx):
        self.stmts(cmd.get("Cond"), OFF)
        self.stmts(cmd.get("Then"), ctx)
        if cmd.get("Else"):
            self.if_clause(cmd["Else"], ctx)


    def reads_status(self, st):
        """`cmd; rc=$?`: the next command looks at the status."""
        return b"$?" in self.text[st["Pos"]["Offset"]:st["End"]["Offset"]]


# Commands whose failure does not matter: messages, loop control, and
# assignments of plain words.
QUIET = (":", "true", "echo", "printf", "continue", "break")


def harmless(st):
    cmd = st.get("Cmd") or {}
    kind = cmd.get("Type")
    if st.get("Background"):
        return True
    if kind == "CaseClause":
        return all(harmless(x) for item in cmd.get("Items") or [] for x in item.get("Stmts") or [])
    if kind == "BinaryCmd" and cmd["Op"] == OR:
        return fails(cmd["Y"])
    if kind != "CallExpr":
        return False
    if cmd.get("Args"):
        return first_word(st) in QUIET
    return "CmdSubst" not in json.dumps(cmd.get("Assigns"))


def fails(st):
    """The statement ends the body or function with a failure."""
    cmd = st.get("Cmd") or {}
    if cmd.get("Type") == "Block":
        return bool(cmd.get("Stmts")) and fails(cmd["Stmts"][-1])
    args = cmd.get("Args") or []
    name = first_word(st)
    if name == "false":
        return True
    return name in ("exit", "return") and len(args) == 2 and word(args[1]) not in (None, "0")


def first_word(st):
    cmd = st.get("Cmd") or {}
    args = cmd.get("Args") or []
    return word(args[0]) if cmd.get("Type") == "CallExpr" and args else None


def word(w):
    parts = w.get("Parts") or []
    if len(parts) == 1 and parts[0].get("Type") == "Lit":
        return parts[0].get("Value")
    return None


def main():
    body = sys.stdin.read()
    p = subprocess.run(["shfmt", "-ln", "posix", "--to-json"], input=body.encode(),
                       capture_output=True)
    if p.returncode != 0:
        print("the body does not parse as POSIX sh: " + p.stderr.decode().strip())
        return 1
    lint = Lint(body)
    lint.stmts(json.loads(p.stdout).get("Stmts"), TAIL)
    for problem in lint.problems:
        print("broken &&-chain: " + problem)
    return 1 if lint.problems else 0


if __name__ == "__main__":
    sys.exit(main())
