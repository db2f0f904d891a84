#!/usr/bin/env python3
"""Solve Sia's programs with GLPK the way the Arena artifact did (cvxpy's
GLPK_MI, i.e. cvxopt.glpk.ilp), for glpk_test.go.

One JSON object per input line: "w" (rows x 20 weights, the new job's row
last, without the bonus; infeasible entries -1e9), "prev" (previous column
of each admitted row), "hasprev", "cap" (GPUs per type), "bonus". One JSON
object per output line: "status" (GLPK's) and "cols" (column per row, -1 =
none). The matrices follow cvxpy's canonical form of the artifact's program
(baselines/sia_sched.py): variables column-major, constraints in the order
x >= 0, admitted rows == 1, new row <= 1, per-type capacity, change limit.
"""
import json
import sys

from cvxopt import glpk, matrix, spmatrix

COUNTS = [1, 2, 4, 8, 16]
glpk.options["msg_lev"] = "GLP_MSG_OFF"
glpk.options["tm_lim"] = 30000


def solve(d):
    w, prev, cap, bonus = d["w"], d["prev"] or [], d["cap"], d["bonus"]
    n, ncol = len(w), len(w[0])
    nv = n * ncol

    def idx(i, j):
        return i + j * n  # cvxpy vectorises matrices column-major

    c = [0.0] * nv
    for i in range(n):
        for j in range(ncol):
            c[idx(i, j)] = -w[i][j] - (bonus if i == n - 1 else 0.0)
    g_rows = []  # (list of (col, coef), rhs)
    for k in range(nv):
        g_rows.append(([(k, -1.0)], 0.0))
    a_rows = []
    if n > 1:
        for i in range(n - 1):
            a_rows.append(([(idx(i, j), 1.0) for j in range(ncol)], 1.0))
    g_rows.append(([(idx(n - 1, j), 1.0) for j in range(ncol)], 1.0))
    for t in range(len(cap)):
        g_rows.append(([(idx(i, t * 5 + k), float(m)) for i in range(n) for k, m in enumerate(COUNTS)], float(cap[t])))
    if d["hasprev"]:
        coefs = [(idx(i, p), -1.0) for i, p in enumerate(prev)] + [(idx(n - 1, j), -1.0) for j in range(ncol)]
        g_rows.append((coefs, -float(n - 3)))

    def sparse(rows):
        vals, ri, ci = [], [], []
        for r, (coefs, _) in enumerate(rows):
            for col, v in coefs:
                vals.append(v)
                ri.append(r)
                ci.append(col)
        return spmatrix(vals, ri, ci, (len(rows), nv)), matrix([rhs for _, rhs in rows], (len(rows), 1), "d")

    G, h = sparse(g_rows)
    if a_rows:
        A, b = sparse(a_rows)
    else:
        A, b = spmatrix([], [], [], (0, nv), "d"), matrix(0.0, (0, 1))
    status, x = glpk.ilp(matrix(c), G, h, A, b, set(), set(range(nv)))
    if x is None:
        return status, None
    cols = []
    for i in range(n):
        sel = [j for j in range(ncol) if x[idx(i, j)] >= 0.5]
        cols.append(sel[0] if sel else -1)
    return status, cols


for line in sys.stdin:
    status, cols = solve(json.loads(line))
    sys.stdout.write(json.dumps({"status": status, "cols": cols}) + "\n")
    sys.stdout.flush()
