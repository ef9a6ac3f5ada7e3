#!/usr/bin/env bash
# The campaign against broken builds of dlock-core: each mutant must make it fail (exit 1).
#   dlock-faults/mutants.sh [DURATION] [SEED] [NAME]   (default 3m, seed 7, every mutant; needs a built dlock-faults.jar)
# Each mutant is one literal edit of one source file of dlock-core, compiled on its own against the
# campaign's jar and put first on the class path of the campaign and of every client it starts.
set -uo pipefail
cd "$(dirname "$0")/.."
jar=dlock-faults/target/dlock-faults.jar
[ -f "$jar" ] || ./mvnw -B -q -pl dlock-faults -am package -DskipTests
duration=${1:-3m}
seed=${2:-7}
only=${3:-}
src=dlock-core/src/main/java
failed_to_fail=0

# mutant NAME FAULTS FILE FROM TO [FILE FROM TO ...]
mutant() {
  local name=$1 faults=$2
  if [ -n "$only" ] && [ "$only" != "$name" ]; then return; fi
  shift 2
  local work
  work=$(mktemp -d)
  mkdir -p "$work/src" "$work/classes"
  while [ $# -gt 0 ]; do
    # found by its path's end, so that a file moved to another package is still found
    local found
    found=$(find "$src" -path "*/$1" | head -1)
    [ -n "$found" ] || { echo "mutant $name: $1 not found under $src"; exit 2; }
    mkdir -p "$(dirname "$work/src/$1")"
    cp "$found" "$work/src/$1"
    FROM=$2 TO=$3 perl -0pi -e '$n = s/\Q$ENV{FROM}\E/$ENV{TO}/g; die "no match\n" unless $n' "$work/src/$1" \
      || { echo "mutant $name: '$2' not found in $1"; exit 2; }
    shift 3
  done
  javac --release 17 -nowarn -d "$work/classes" -cp "$jar" $(find "$work/src" -name '*.java') || exit 2
  echo "== mutant $name (faults $faults, $duration, seed $seed)"
  java -cp "$work/classes:$jar" dev.dlock.faults.Campaign --duration "$duration" --seed "$seed" --faults "$faults" \
    > "$work/campaign.txt" 2>&1
  local rc=$?
  grep -E '^(properties|VIOLATION)' "$work/campaign.txt" | head -6
  if [ "$rc" = 1 ]; then
    echo "mutant $name: caught (campaign exit 1); full output $work/campaign.txt"
  else
    echo "mutant $name: NOT caught (campaign exit $rc); full output $work/campaign.txt"
    failed_to_fail=1
  fi
}

mutant watchdog-never-gives-up client-stop,forced-release,restart-empty,server-stop \
  hold/Watchdog.java 'Renewal outcome = error != null ? Renewal.UNKNOWN : outcomes[i];' 'Renewal outcome = Renewal.RENEWED;'

mutant tokens-do-not-increase client-kill,client-stop \
  redis/Replies.java 'new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))),' 'new AcquireReply.Granted(1L,' \
  redis/ScriptHandoff.java 'new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))),' 'new AcquireReply.Granted(1L,'

mutant lease-on-the-wall-clock client-stop \
  settings/Ticker.java 'return System.nanoTime();' 'return System.currentTimeMillis() * 1_000_000L;'

exit $failed_to_fail
