#!/usr/bin/env bash
# The campaign against broken builds of dlock-core: each mutant must make it fail (exit 1).
#   dlock-faults/mutants.sh [DURATION] [SEED] [NAME]   (default 3m, seed 7, every mutant; needs a built dlock-faults.jar)
# Each mutant is a literal edit of one or two source files of dlock-core (Java sources compiled on their
# own against the campaign's jar, resources such as the PostgreSQL schema copied as they are), put first
# on the class path of the campaign and of every client it starts. Each runs the campaign over its store.
set -uo pipefail
cd "$(dirname "$0")/.."
jar=dlock-faults/target/dlock-faults.jar
[ -f "$jar" ] || ./mvnw -B -q -pl dlock-faults -am package -DskipTests
duration=${1:-3m}
seed=${2:-7}
only=${3:-}
src=dlock-core/src/main/java
resources=dlock-core/src/main/resources
failed_to_fail=0

# mutant NAME STORE FAULTS FILE FROM TO [FILE FROM TO ...]
mutant() {
  local name=$1 store=$2 faults=$3
  if [ -n "$only" ] && [ "$only" != "$name" ]; then return; fi
  shift 3
  local work
  work=$(mktemp -d)
  mkdir -p "$work/src" "$work/classes"
  while [ $# -gt 0 ]; do
    # found by its path's end, so that a file moved to another package is still found
    local found copy
    case "$1" in
      *.java) found=$(find "$src" -path "*/$1" | head -1); copy="$work/src/$1" ;;
      # a resource keeps its path from the class path's root, where the mutant's classes go
      *) found=$(find "$resources" -path "*/$1" | head -1); copy="$work/classes/${found#"$resources"/}" ;;
    esac
    [ -n "$found" ] || { echo "mutant $name: $1 not found under $src or $resources"; exit 2; }
    mkdir -p "$(dirname "$copy")"
    cp "$found" "$copy"
    FROM=$2 TO=$3 perl -0pi -e '$n = s/\Q$ENV{FROM}\E/$ENV{TO}/g; die "no match\n" unless $n' "$copy" \
      || { echo "mutant $name: '$2' not found in $1"; exit 2; }
    shift 3
  done
  javac --release 17 -nowarn -d "$work/classes" -cp "$jar" $(find "$work/src" -name '*.java') || exit 2
  echo "== mutant $name ($store, faults $faults, $duration, seed $seed)"
  java -cp "$work/classes:$jar" dev.dlock.faults.Campaign --store "$store" --duration "$duration" --seed "$seed" --faults "$faults" \
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

mutant watchdog-never-gives-up redis client-stop,forced-release,restart-empty,server-stop \
  hold/Watchdog.java 'Renewal outcome = error != null ? Renewal.UNKNOWN : outcomes[i];' 'Renewal outcome = Renewal.RENEWED;'

mutant tokens-do-not-increase redis client-kill,client-stop \
  redis/Replies.java 'new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))),' 'new AcquireReply.Granted(1L,' \
  redis/ScriptHandoff.java 'new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))),' 'new AcquireReply.Granted(1L,'

mutant lease-on-the-wall-clock redis client-stop \
  settings/Ticker.java 'return System.nanoTime();' 'return System.currentTimeMillis() * 1_000_000L;'

# PostgreSQL judges every lease on its own clock (clock_timestamp()); this mutant judges it on the
# calling client's wall clock instead, sent with every call (as a setting local to the call's transaction),
# in every version's file: each later one redefines functions of the one before (dlock_acquire, ...)
mutant lease-on-the-client-clock postgres client-kill,client-stop \
  dev/dlock/postgres/V1__dlock.sql 'clock_timestamp()' "current_setting('dlock.client_now')::timestamptz" \
  dev/dlock/postgres/V2__dlock.sql 'clock_timestamp()' "current_setting('dlock.client_now')::timestamptz" \
  dev/dlock/postgres/V3__dlock.sql 'clock_timestamp()' "current_setting('dlock.client_now')::timestamptz" \
  postgres/PgConnections.java '            T value = call.run(connection);' \
  '            connection.setAutoCommit(false);
            try (java.sql.Statement clientClock = connection.createStatement()) {
                clientClock.execute("SELECT set_config('"'"'dlock.client_now'"'"', '"'"'" + java.time.Instant.now() + "'"'"', true)");
            }
            T value = call.run(connection);'

exit $failed_to_fail
