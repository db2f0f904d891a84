// Package ilp is a small branch-and-bound solver for pure integer linear
// programs (every variable integer, most often binary), written for the
// Gavel and Sia baselines, which the Arena artifact solves with CPLEX and
// GLPK through cvxpy. No Go binding to a production MILP solver can be had
// here, so this package provides just enough: exact optima on the small
// programs the baselines produce, with limits and an honest gap otherwise.
//
// # Model
//
//	maximize   cᵀx
//	subject to aᵢᵀx (≤ | = | ≥) bᵢ      for every row i
//	           0 ≤ xⱼ ≤ uⱼ, xⱼ integer  (uⱼ may be +Inf)
//
// # Algorithm
//
//   - LP relaxations are solved by gonum's optimize/convex/lp Simplex (dense,
//     standard form; a copy with a pivot budget, see Limits). Each node builds the standard form of its own LP:
//     variables fixed by branching are substituted out (so binary programs
//     shrink as the search deepens), each inequality gets a slack column, and
//     a node whose rows are all ≤ with a non-negative right-hand side starts
//     from the all-slack basis (no Phase I).
//   - Lazy rows. Variable upper bounds, and any row marked Lazy, enter a
//     node's LP only once its solution violates them; the LP is then solved
//     again. The final LP of a node satisfies every row, so its value is the
//     exact relaxation bound — this only keeps the dense LPs small (the
//     baselines' programs have hundreds of columns but only a handful of
//     binding rows). Rows added at a node are inherited by its children.
//   - Depth-first search. Branching variable: the most fractional one, the
//     lowest index on ties. The child that contains the hint's value (or the
//     upper child without a hint) is explored first. Every node also tries
//     rounding its LP solution to the nearest integers.
//   - Deterministic tie-breaking. The incumbent starts as Options.Hint if it
//     is feasible and is replaced only by a solution strictly better by more
//     than the tolerance Options.Tol·max(1, |incumbent|); nodes whose bound
//     does not beat the incumbent by that much are pruned. Among optimal
//     solutions the result is therefore the hint if it is optimal, otherwise
//     the first optimal solution met in the fixed search order. Nothing
//     depends on maps, time or randomness, so a run is reproducible.
//   - Limits. Options.NodeLimit (a node count, never wall time) stops the search; the
//     result then carries the incumbent (Status Feasible) or none
//     (LimitNoSolution), and Bound/Gap bound how far the incumbent can be from
//     the optimum: Bound = max(incumbent, bounds of the open nodes).
//
// # Reassignment programs (Gavel, Sia)
//
// SolveReassignment takes the baselines' program in its natural form (one
// column per job out of a few, per-resource capacities, at most MaxChanges
// jobs leaving their previous column) and rewrites it exactly as a program
// over changes, keeping only the MaxChanges best changes of each capacity
// class (see Reassignment). The reduced program is then solved by default
// by an exact enumeration of change sets with a gain bound and a
// capacity-aware bound (enumerate), which needs microseconds where the LP
// branch and bound needs tens of milliseconds on the same program (gonum's
// dense Simplex re-factorises and estimates a condition number at every
// pivot, and the LP bound of these knapsack-like programs is weak: the
// Philly Gavel run did not finish in 10 minutes that way, and takes about a
// second with the enumeration). Reassignment.BranchAndBound selects the LP
// branch and bound instead; the property tests check both against brute
// force on thousands of random programs, and the generic solver against the
// artifact's own formulation. Options.NodeLimit bounds the change sets the
// enumeration examines; when it stops the search the incumbent is returned
// (Status Feasible) with the gap to the root LP bound. A ReassignmentSolver
// kept across programs reuses what depends only on the rows; a caller that
// keeps its rows and reports each edit (ReassignmentSolver.Keep) has the
// rows' candidate moves kept per row instead of rebuilt per program, so a
// program costs what its edits changed, not its number of rows.
//
// # Limits of this solver
//
//   - Dense LPs: each LP costs O(m²·n) per pivot for m active rows and n
//     columns. Programs with more than a few dozen rows that are binding at
//     once (e.g. one equality row per job) are slow; formulate so that most
//     rows are implied or lazy (the baselines use a "changes from the
//     previous solution" formulation, see policy/gavel and policy/sia).
//   - No cuts, presolve or dual simplex warm starts; the bound is the plain LP
//     relaxation. Programs with weak relaxations and many symmetric optima
//     may need many nodes: set NodeLimit and read Gap.
//   - Tolerances: integrality 1e-6, feasibility 1e-7 (scaled by the row's
//     magnitude), optimality Options.Tol (default 1e-9, relative). Objective
//     coefficients spanning many orders of magnitude (such as the artifact's
//     −1e9 "infeasible" throughput next to values of order 1) weaken the
//     relative tolerances.
//   - gonum's Simplex can report a numerical failure (singular basis, Bland
//     failure), and it can loop forever: its entering column is the most
//     negative reduced cost against an absolute tolerance, so next to a
//     −1e9 cost two identical columns can each look improving by rounding
//     error and be swapped in and out for ever. The LPs are therefore
//     solved by a copy of gonum's Simplex (simplex.go, the same arithmetic)
//     that gives up when it meets a basis again (a cycle, found exactly) or
//     after 100·(rows+columns) pivots (an LP that converges needs far
//     fewer), and reports a numerical failure. The node is then
//     not pruned: it is branched on its first free variable with the
//     parent's bound, so the search stays exact and only gets slower, and a
//     gap bound whose LP fails is +Inf. Result.LPFailures counts such nodes.
package ilp
