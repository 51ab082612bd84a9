#!/usr/bin/env bash
# Runs the timing checks (the tests behind MONAD_TIMING=1) and the
# benchmark suite, and writes BENCHMARKS.md.
#   scripts/bench.sh [ROUNDS]       (default 8; about 8 minutes on 2 cores)
#
# The machine is shared and noisy, so the published figures are ratios of
# benchmarks measured in the same round: each round runs every benchmark
# once (-count 1, in a fixed order, the benchmarks compared with each other
# back to back), and a ratio is the median over the rounds of its per-round
# ratio. Absolute figures are medians too. Raw
# output stays in .bench/ (ignored by git); benchstat's summary of the time
# per op (six rounds or more give it a 95% confidence interval) is appended
# to BENCHMARKS.md when the benchstat tool can be fetched.
#
# Slow benchmarks run a fixed number of iterations (-benchtime Nx), so that
# the whole suite stays bounded. Only loopback and pipes are used.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-8}"
out=.bench
rm -rf "$out"
mkdir -p "$out"
raw="$out/raw.txt"
: >"$raw"

load() { cut -d' ' -f1-3 /proc/loadavg; }
load >"$out/load-start.txt"
echo "load average at start: $(cat "$out/load-start.txt")"

# The timing checks: the tests that assert wall-clock durations or timing
# ratios run only with MONAD_TIMING=1 (go test ./... leaves them out, since
# a loaded machine fails them). Their failure fails this script, after the
# benchmarks.
echo "timing checks (MONAD_TIMING=1 go test ./...)"
timing=0
if ! MONAD_TIMING=1 go test -count=1 ./... >"$out/timing.txt" 2>&1; then
  timing=1
  grep -E -e '--- FAIL|^FAIL' "$out/timing.txt" || tail -20 "$out/timing.txt"
fi

# Build each test binary once; every round runs the same binaries.
for pkg in engine events stdlib luaapi cmd/monad-hooks/internal/cli; do
  go test -c -o "$out/$(basename "$pkg").test" "./$pkg"
done

# bench PKGDIR BINARY BENCHTIME REGEXP: one -count 1 pass, appended to raw.
bench() {
  local dir=$1 bin=$2 benchtime=$3 re=$4
  (cd "$dir" && "$OLDPWD/$out/$bin" -test.run '^$' -test.bench "$re" -test.benchmem \
    -test.benchtime "$benchtime" -test.count 1) | grep -E '^Benchmark' | sed "s/^/$bin /" >>"$raw"
}

# The groups of a round. A group is one process running its benchmarks
# back to back, so that the benchmarks compared in the table run seconds
# apart at most; the groups whose benchmarks are compared across binaries
# (the default set in the engine and in stdlib) run one after the other.
g_fast='^(BenchmarkDispatchFastPath|BenchmarkDispatchNoHooks|BenchmarkFloorCallIndex|BenchmarkFloorSignature|BenchmarkParallelFastPath|BenchmarkParallelFloorCallIndex|BenchmarkConfigResolution)$'
g_go='^(BenchmarkDispatchOneGo|BenchmarkDispatchSerial5|BenchmarkDispatchParallel5|BenchmarkParallelOneGo)$'
g_lua='^(BenchmarkLuaGuard|BenchmarkLuaGuardPeers|BenchmarkLuaFloor|BenchmarkNativeGoGuard|BenchmarkLuaPoolCall)$'
g_set='^(BenchmarkDefaultSet|BenchmarkResultJSON)$'
g_setlib='^(BenchmarkDefaultSetBeforeTool|BenchmarkFloorEmptyHook|BenchmarkFamilies)$'

for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds (load $(load))"
  echo "round $r" >>"$raw"
  bench engine engine.test 200ms "$g_fast"
  bench engine engine.test 200ms "$g_go"
  bench engine engine.test 200ms "$g_lua"
  bench engine engine.test 200ms "$g_set"
  bench events events.test 200ms '^BenchmarkDecodeInput$'
  bench stdlib stdlib.test 200ms "$g_setlib"
  bench stdlib stdlib.test 200ms '^BenchmarkRedactSecrets$'
  bench stdlib stdlib.test 2x '^BenchmarkRedactPII$'
  bench engine engine.test 200x '^(BenchmarkCommandHook|BenchmarkBareExecHook|BenchmarkResidentHook)$'
  bench engine engine.test 5x '^BenchmarkNewDefaultSet$'
  bench engine engine.test 1x '^BenchmarkMemory$'
  bench luaapi luaapi.test 20x '^(BenchmarkDecodeScript|BenchmarkCompileScript)$'
  bench cmd/monad-hooks/internal/cli cli.test 20x '^(BenchmarkCLIRun|BenchmarkCLIRunAfterTool|BenchmarkCLIRunNoStdlib|BenchmarkCLIJSONEcho|BenchmarkCLITrue)$'
  bench cmd/monad-hooks/internal/cli cli.test 2000x '^(BenchmarkServeLines|BenchmarkPipeEcho|BenchmarkTCPEcho|BenchmarkServeHTTPRaw|BenchmarkServeHTTP|BenchmarkServeHTTPHealthz)$'
done

# System calls per dispatch when nothing changed, counted by strace over two
# run lengths: the difference divided by the extra dispatches is the
# per-call figure, for stat-family calls and for all calls (which include
# the Go runtime's own background calls, proportional to time, not to
# dispatches). The clock is read through the vDSO: no system call.
: >"$out/syscalls.txt"
if command -v strace >/dev/null; then
  for sub in interval statPerCall; do
    line="$sub"
    for n in 10000 60000; do
      (cd engine && strace -f -qq -c -o "$OLDPWD/$out/strace-$sub-$n.txt" "$OLDPWD/$out/engine.test" \
        -test.run '^$' -test.bench "^BenchmarkConfigResolution\$/^$sub\$" -test.benchtime "${n}x" >/dev/null)
      line+=" $(awk '$NF ~ /^(stat|lstat|fstat|newfstatat|statx)$/ { s += $4 } $NF == "total" { t = $4 } END { print s + 0, t + 0 }' "$out/strace-$sub-$n.txt")"
    done
    echo "$line 50000" >>"$out/syscalls.txt"
  done
fi

load >"$out/load-end.txt"
echo "load average at end: $(cat "$out/load-end.txt")"

# benchstat's summary, per binary (optional: it is fetched from the module
# proxy, never added to go.mod).
: >"$out/benchstat.txt"
benchstat=(go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
for bin in engine.test events.test stdlib.test luaapi.test cli.test; do
  name=${bin%.test}
  grep "^$bin " "$raw" | sed "s/^$bin //" >"$out/$name.txt"
  if ! (cd "$out" && timeout 300 "${benchstat[@]}" -filter '.unit:sec/op' "$name.txt") >>"$out/benchstat.txt" 2>"$out/benchstat.err"; then
    echo "benchstat unavailable: $(tail -1 "$out/benchstat.err")" >"$out/benchstat.txt"
    break
  fi
  echo >>"$out/benchstat.txt"
done

go run scripts/benchtable.go -raw "$raw" -syscalls "$out/syscalls.txt" -benchstat "$out/benchstat.txt" \
  -load-start "$(cat "$out/load-start.txt")" -load-end "$(cat "$out/load-end.txt")" \
  -go "$(go version)" -cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
  -nproc "$(nproc)" >"$out/generated.md"
# The hand-written sections (before/after figures of past changes, headed
# "## By hand") follow the generated part unchanged.
if [ -f BENCHMARKS.md ]; then
  sed -n '/^## By hand/,$p' BENCHMARKS.md >"$out/byhand.md"
  if [ -s "$out/byhand.md" ]; then
    printf '\n' >>"$out/generated.md"
    cat "$out/byhand.md" >>"$out/generated.md"
  fi
fi
mv "$out/generated.md" BENCHMARKS.md
echo "wrote BENCHMARKS.md"
if [ "$timing" != 0 ]; then
  echo "timing checks FAILED: see $out/timing.txt"
  exit 1
fi
