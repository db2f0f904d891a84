# Sourced by .ci/slurm-test.sh and .ci/slurm-replay-test.sh: their messages,
# the loud skip, and the Debian packages they install. The sourcing script
# sets TEST (the name its messages carry) first.

say() { printf '%s: %s\n' "$TEST" "$*" >&2; }
die() { say "FAIL: $*"; exit 1; }

# skip REASON: the test cannot run here. It says so loudly and exits 0,
# unless ARENA_SLURM_REQUIRED=1 (CI sets it as root): then it fails.
skip() {
  printf '\n%s\n' "########################################################################" >&2
  printf '%s: SKIPPED — %s\n' "$TEST" "$*" >&2
  printf '%s\n\n' "########################################################################" >&2
  if [ "${ARENA_SLURM_REQUIRED:-}" = 1 ]; then
    die "ARENA_SLURM_REQUIRED=1: $TEST may not be skipped here"
  fi
  exit 0
}

# need_packages COMMAND=PACKAGE…: installs (apt-get, root) the Debian
# packages of the commands not found on PATH or in /usr/sbin, or skips,
# then puts /usr/sbin on PATH. policy-rc.d, if the image has one, keeps the
# packages from starting their own services; the tests start their own.
need_packages() {
  local c missing=() want
  for c in "$@"; do
    command -v "${c%%=*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${c%%=*}" ] || missing+=("${c#*=}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    want=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
    [ "$(id -u)" = 0 ] || skip "needs root to install $want(not root; install them, or run as root)"
    command -v apt-get >/dev/null || skip "needs apt-get to install $want"
    say "installing $want(Debian packages)"
    { timeout 300 apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends $want; } >/dev/null 2>&1 ||
      skip "apt-get install $want failed (no package access?)"
  fi
  export PATH=$PATH:/usr/sbin:/sbin
}
