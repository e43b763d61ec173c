#!/bin/bash
# P2 up close: leadline on each store given (e.g. 10k and 10M leads, made with `leadline seed` and
# bench/grow.ts) — a SQLite file, or a PostgreSQL URL (postgres://…) — getLastLead with wrk on one
# connection for 5 s, the stores alternated over 3 rounds; prints each round's p50. Servers on
# CPU 0 with the bench's settings; run it as
#   taskset -c 1 bench/last-lead-by-size.sh /tmp/s10k.db /tmp/s10m.db
# Needs wrk and member 1 in each store (a legacy-v1 key is created for it). Built code (dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
# The bench's server environment, from the one place that defines it (bench/lib.ts SERVER_ENV).
server_env=$(node --import tsx -e 'import("./bench/lib.ts").then(({ SERVER_ENV }) => {
  for (const [name, value] of Object.entries(SERVER_ENV)) console.log(`${name}=${value}`);
})')
while IFS='=' read -r name value; do export "$name=$value"; done <<<"$server_env"
stores=("$@") keys=() ports=() pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
port=7101
for store in "$@"; do
  if [[ $store == postgres://* || $store == postgresql://* ]]; then where=(--database-url "$store"); else where=(--db "$store"); fi
  keys+=("$(node bin/leadline.js "${where[@]}" --json keys create --member 1 --legacy-v1 |
    node -e 'let d="";process.stdin.on("data",(c)=>{d+=c}).on("end",()=>console.log(JSON.parse(d).key))')")
  taskset -c 0 node bin/leadline.js "${where[@]}" serve --port "$port" >/dev/null 2>&1 &
  pids+=($!) ports+=("$port")
  port=$((port + 1))
done
sleep 3
for round in 1 2 3; do
  for i in "${!ports[@]}"; do
    wrk -t1 -c1 -d5 --latency -H "authorization: Bearer ${keys[$i]}" \
      "http://127.0.0.1:${ports[$i]}/api/pub/leads/getLastLead" |
      awk -v r="$round" -v s="${stores[$i]}" '/ 50%/ { print "round " r ", store " s ": p50 " $2 }'
  done
done
