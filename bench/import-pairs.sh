#!/usr/bin/env bash
# Two checkouts' `leadline import` into PostgreSQL, alternated pair by pair: each run into a fresh,
# migrated schema, after a CHECKPOINT (bench/harness/stores.ts `checkpoint`), on CPUs 0 and 1 as
# P5 runs it. Prints each run's wall seconds, the command's user and system CPU seconds, and the
# server's CPU seconds for it — read from the postmaster's reaped children (cutime + cstime in
# /proc/<pid>/stat), so it needs the server on this machine and nothing else connecting meanwhile.
#
#   bench/import-pairs.sh <old checkout> <new checkout> <file.ndjson> [pairs, default 5]
#
# Both checkouts need dist/ built (`npm run build`). URL: LEADLINE_TEST_DATABASE_URL, else the
# local test database. The schema `import_pairs` is dropped at the end.
set -euo pipefail
old=$1 new=$2 file=$3 pairs=${4:-5}
url=${LEADLINE_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
postmaster=$(psql "$url" -Atc 'SHOW data_directory' | xargs -I{} head -1 {}/postmaster.pid)
server_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat"; }
tick=$(getconf CLK_TCK)
store="$url$([[ $url == *\?* ]] && echo '&' || echo '?')search_path=import_pairs"
times=$(mktemp)
trap 'rm -f "$times"; psql -q "$url" -c "DROP SCHEMA IF EXISTS import_pairs CASCADE" 2>/dev/null' EXIT
for ((i = 1; i <= pairs; i++)); do
  for side in old new; do
    dir=${!side}
    psql -q "$url" -c 'DROP SCHEMA IF EXISTS import_pairs CASCADE' -c 'CREATE SCHEMA import_pairs' 2>/dev/null
    node "$dir/bin/leadline.js" --database-url "$store" migrate > /dev/null
    psql -q "$url" -c CHECKPOINT
    before=$(server_ticks)
    /usr/bin/time -o "$times" -f '%e %U %S' \
      taskset -c 0,1 node "$dir/bin/leadline.js" --database-url "$store" import --json "$file" > /dev/null
    sleep 0.5 # the backend is reaped once the command's connections close
    after=$(server_ticks)
    read -r wall user sys < "$times"
    printf '%s %d wall %s user %s sys %s server %s\n' "$side" "$i" "$wall" "$user" "$sys" \
      "$(awk -v t="$((after - before))" -v hz="$tick" 'BEGIN { printf "%.2f", t / hz }')"
  done
done
