#!/usr/bin/env bash
# The exec protocol's cost: Python FIFO (examples/python/fifo.py) against Go
# fcfs, whole process (arena and its child), best of N runs interleaved, on
# built-in Philly (paper-1280, 2000 rounds) and on the 82,247-job trace on
# 10,240 GPUs (arena trace synth --recipe arena --from philly-pollux --seed 1,
# examples/scale/paper-10240.yaml, --rounds 31400). Prints wall and CPU
# (user + sys, children included; /usr/bin/time, else bash's time) per run and the ratios of the best; checks
# that each exec run's per-round digest (rounds.csv) is byte-identical to
# fcfs's. A benchmark, not a test: the figures depend on the machine and its
# load (printed). `make bench-python`; BENCH_RUNS=N (default 3),
# BENCH_PYTHON=interpreter (default /usr/bin/python3, else python3),
# BENCH_SCALE=0 for built-in Philly only. PYTHONDONTWRITEBYTECODE and
# PYTHONUNBUFFERED are removed from the environment (a user's usual one: the
# client's bytecode cached, stdout buffered); BENCH_KEEP_ENV=1 keeps them.
set -euo pipefail
if [ "${BENCH_KEEP_ENV:-0}" != 1 ]; then unset PYTHONDONTWRITEBYTECODE PYTHONUNBUFFERED; fi
cd "$(dirname "$0")/.."
runs=${BENCH_RUNS:-3}
py=${BENCH_PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3 )}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p bench
go build -o bin/arena ./cmd/arena
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
out=bench/exec-$rev.txt
: > "$out"
say() { echo "$@" | tee -a "$out"; }
say "exec bench, revision $rev, $(date -u +%FT%TZ), $(nproc) cores, $($py --version 2>&1) ($py)"

# measure NAME ARGS…: one run, "wall cpu" appended to $scratch/NAME.
measure() {
	local name=$1
	shift
	local t
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S' -o "$scratch/time" bin/arena simulate --quiet --no-reference --out "$scratch/$name" "$@" >/dev/null 2>"$scratch/err" ||
			{ cat "$scratch/err" >&2; exit 1; }
		t=$(tail -1 "$scratch/time")
	else # bash's time: the same three figures, children included
		local TIMEFORMAT='%R %U %S'
		t=$( { time bin/arena simulate --quiet --no-reference --out "$scratch/$name" "$@" >/dev/null 2>"$scratch/err"; } 2>&1 ) ||
			{ cat "$scratch/err" >&2; exit 1; }
	fi
	read -r wall user sys <<<"$t"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	say "  $name: wall $wall s, cpu $cpu s, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "$wall $cpu" >> "$scratch/$name.t"
}

best() { sort -n -k"$2" "$scratch/$1.t" | head -1 | cut -d' ' -f"$2"; }

# bench LABEL ARGS…: fcfs and fifo.py interleaved, runs times; the ratios.
bench() {
	local label=$1
	shift
	say "$label"
	for _ in $(seq "$runs"); do
		measure "$label-fcfs" --policy fcfs "$@"
		measure "$label-fifo" --policy "exec:$py examples/python/fifo.py" "$@"
	done
	cmp -s "$scratch/$label-fcfs/fcfs/rounds.csv" "$scratch/$label-fifo"/exec*/rounds.csv ||
		{ say "  FAIL: rounds.csv of fifo.py differs from fcfs's"; exit 1; }
	local gw gc pw pc
	gw=$(best "$label-fcfs" 1); gc=$(best "$label-fcfs" 2)
	pw=$(best "$label-fifo" 1); pc=$(best "$label-fifo" 2)
	say "  best of $runs: fcfs wall $gw s cpu $gc s; fifo.py wall $pw s cpu $pc s;" \
		"ratio wall $(awk -v a="$pw" -v b="$gw" 'BEGIN { printf "%.2f", a / b }')×" \
		"cpu $(awk -v a="$pc" -v b="$gc" 'BEGIN { printf "%.2f", a / b }')×; rounds.csv identical"
}

bench philly --trace philly --cluster paper-1280 --rounds 2000
if [ "${BENCH_SCALE:-1}" != 0 ]; then
	trace=bench/philly-arena.csv
	[ -s "$trace" ] || bin/arena trace synth --recipe arena --from philly-pollux --seed 1 -o "$trace" >/dev/null 2>&1
	bench scale --trace "$trace" --cluster examples/scale/paper-10240.yaml --rounds 31400
fi
echo "saved $out"
