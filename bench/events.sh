#!/usr/bin/env bash
# What events cost (issue 15), run by `make bench` after bench/run.sh's own runs, or alone:
#   1. POST /v1/pets and order placement (POST /v1/store/orders) on the build before events were
#      recorded (the newest commit without models/event.go, built from a git worktree) and on
#      this one, without a webhook endpoint and with one subscribed to every event type
#      (its deliveries then run beside the load, to bench/receiver), on PostgreSQL and on the
#      embedded SQLite; the three alternate round by round so they share the machine's mood.
#   2. BenchmarkDeliveries: events per second delivered to a receiver on loopback.
# Prints Markdown tables. About three minutes. Settings (environment):
#   BENCH_PG                 PostgreSQL server, without a database   postgres://postgres@127.0.0.1:5432
#   BENCH_EVENTS_DURATION    seconds per wrk run                     4
#   BENCH_EVENTS_ROUNDS      rounds                                  3
#   BENCH_EVENTS_CONNECTIONS wrk connections (2 threads)             16
#   BENCH_EVENTS_STORES      which databases                         postgres sqlite
#   BENCH_EVENTS_BEFORE      the commit to compare with              the newest without events
set -euo pipefail
cd "$(dirname "$0")/.."

PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
DURATION=${BENCH_EVENTS_DURATION:-4}
ROUNDS=${BENCH_EVENTS_ROUNDS:-3}
CONNS=${BENCH_EVENTS_CONNECTIONS:-16}
THREADS=2
STORES=${BENCH_EVENTS_STORES:-postgres sqlite}
PETS=$((ROUNDS * DURATION * 3000 + 1000)) # enough available pets for every order placed
RECEIVER=127.0.0.1:18095
VARIANTS=(before after after+endpoint)
declare -A PORT=([before]=18081 [after]=18082 [after+endpoint]=18083)

say() { printf '%s\n' "$*" >&2; }
die() { say "bench/events: $*"; exit 1; }
for tool in go git curl wrk psql; do command -v $tool >/dev/null || die "$tool is required"; done

# "Before" is the newest commit of this history without events (models/event.go): the service as
# it was, with every other change merged so far. BENCH_EVENTS_BEFORE names another.
before=${BENCH_EVENTS_BEFORE:-}
if [ -z "$before" ]; then
  for c in $(git rev-list HEAD); do
    git cat-file -e "$c:models/event.go" 2>/dev/null || { before=$c; break; }
  done
fi
[ -n "$before" ] || die "no commit without models/event.go to compare with"
before=$(git rev-parse "$before")

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  git worktree remove --force "$work/before-src" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

say "bench/events: building this commit and $(git rev-parse --short "$before") (before events)"
git worktree add -q --detach "$work/before-src" "$before"
(cd "$work/before-src" && CGO_ENABLED=0 go build -trimpath -o "$work/petstore-before" .)
CGO_ENABLED=0 go build -trimpath -o "$work/petstore-after" .
CGO_ENABLED=0 go build -trimpath -o "$work/receiver" ./bench/receiver
cp "$work/petstore-after" "$work/petstore-after+endpoint"
RECEIVER_ADDR=$RECEIVER "$work/receiver" >>"$work/receiver.log" 2>&1 &
pids+=($!)

# db_env VARIANT STORE: the variables that select the variant's own fresh database.
db_env() {
  local name="petstore_events_${1//+/_}"
  if [ "$2" = postgres ]; then
    echo "DATABASE_URL=$PG/$name?sslmode=disable"
  else
    echo "PETSTORE_DB_PATH=$work/$name.db"
  fi
}

start() { # start VARIANT STORE
  local v=$1 store=$2 name="petstore_events_${1//+/_}" env key
  if [ "$store" = postgres ]; then
    psql -q "$PG/postgres" -c "drop database if exists $name" -c "create database $name" >/dev/null
  else
    rm -f "$work/$name.db"*
  fi
  env=("$(db_env "$v" "$store")" PETSTORE_WEBHOOK_ALLOW_HTTP=true PETSTORE_WEBHOOK_ALLOW_PRIVATE=true PETSTORE_LOG_LEVEL=warn)
  env "${env[@]}" "$work/petstore-$v" migrate 2>>"$work/$v.log"
  env "${env[@]}" "$work/petstore-$v" seed --pets "$PETS" --orders 0 >/dev/null 2>>"$work/$v.log"
  key=$(env "${env[@]}" "$work/petstore-$v" keys create --name bench --plan enterprise \
    --per-minute 1000000000 --per-day 1000000000 --json 2>>"$work/$v.log" | sed -n 's/.*"key" *: *"\([^"]*\)".*/\1/p')
  [ -n "$key" ] || die "$v: no API key"
  KEY[$v]=$key
  env "${env[@]}" PETSTORE_ADDR=127.0.0.1:${PORT[$v]} "$work/petstore-$v" serve >>"$work/$v.log" 2>&1 &
  pids+=($!)
  PID[$v]=$!
  for _ in $(seq 300); do curl -fso /dev/null "http://127.0.0.1:${PORT[$v]}/readyz" && break; sleep 0.1; done
  curl -fso /dev/null "http://127.0.0.1:${PORT[$v]}/readyz" || die "$v did not start: $(tail -n5 "$work/$v.log")"
  if [ "$v" = after+endpoint ]; then
    curl -fs -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
      -d "{\"url\":\"http://$RECEIVER/hook\",\"events\":[\"pet.created\",\"pet.updated\",\"pet.deleted\",\"order.placed\",\"order.approved\",\"order.delivered\",\"order.cancelled\"]}" \
      "http://127.0.0.1:${PORT[$v]}/v1/webhook-endpoints" >/dev/null || die "no webhook endpoint"
  fi
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() { # run ROUND STORE SCENARIO VARIANT
  local round=$1 store=$2 scenario=$3 v=$4 url="http://127.0.0.1:${PORT[$4]}" out c0 c1 script=bench/wrk.lua body=
  if [ "$scenario" = create ]; then
    url+=/v1/pets body='{"name":"Pet from bench/events","categoryId":1}'
  else
    url+=/v1/store/orders script=bench/events.lua
  fi
  c0=$(cpu_ticks "${PID[$v]}")
  out=$(WRK_BODY=$body FIRST_PET=${NEXT_PET[$v]} THREADS=$THREADS wrk -t$THREADS -c"$CONNS" -d"${DURATION}s" --latency \
    -H "Authorization: Bearer ${KEY[$v]}" -s $script "$url") || die "wrk failed on $url"
  c1=$(cpu_ticks "${PID[$v]}")
  out=$(grep '^RESULT ' <<<"$out") || die "no result from wrk on $url"
  read -r _ rps p50 p99 n bad errs _ <<<"$out"
  [ "$scenario" = create ] || NEXT_PET[$v]=$((NEXT_PET[$v] + n + 100))
  [ "$bad" = 0 ] && [ "$errs" = 0 ] || say "  warning: $scenario $v: $bad answers not 2xx, $errs socket errors"
  echo "$round $store $scenario $v $rps $p50 $p99 $(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$n" 'BEGIN { printf "%.0f", t * 1e6 / hz / n }')" >>"$work/results"
  say "  $store $scenario $v: $rps req/s"
}

declare -A KEY PID NEXT_PET
for store in $STORES; do
  say "bench/events: $store: three fresh databases of $PETS pets (the seed records the after builds' events)"
  for v in "${VARIANTS[@]}"; do start "$v" "$store"; NEXT_PET[$v]=1; done
  for round in $(seq "$ROUNDS"); do
    say "bench/events: $store round $round of $ROUNDS"
    order=("${VARIANTS[@]}")
    [ $((round % 2)) = 1 ] || order=(after+endpoint after before)
    for scenario in create orders; do
      for v in "${order[@]}"; do run "$round" "$store" "$scenario" "$v"; done
    done
  done
  delivered=$(curl -fs "http://$RECEIVER/count")
  say "bench/events: $store: $delivered deliveries received so far"
  for v in "${VARIANTS[@]}"; do kill "${PID[$v]}"; wait "${PID[$v]}" 2>/dev/null || true; done
done

cat <<EOF

Machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end. wrk: $THREADS threads, $CONNS connections,
${DURATION} s per run, $ROUNDS rounds alternating; medians of the rounds. before = $(git rev-parse --short "$before"), after = $(git rev-parse --short HEAD).

EOF
awk '
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
  }
  function add(k, v) { vals[k] = (k in vals) ? vals[k] " " v : v }
  {
    key = $2 "/" $3 "/" $4
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    add(key " rps", $5); add(key " p50", $6); add(key " p99", $7); add(key " cpu", $8)
  }
  END {
    print "| database | request | build | req/s | vs before | p50 | p99 | server CPU per request |"
    print "|---|---|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
      key = order[i]; split(key, p, "/"); base = p[1] "/" p[2] "/before"
      r = median(vals[key " rps"]); b = median(vals[base " rps"])
      printf "| %s | %s | %s | %.0f | %s | %.2f ms | %.2f ms | %.0f µs |\n", p[1], p[2] == "create" ? "POST /v1/pets" : "POST /v1/store/orders", p[3],
        r, p[3] == "before" ? "" : sprintf("%.2f", r / b), median(vals[key " p50"]) / 1000, median(vals[key " p99"]) / 1000, median(vals[key " cpu"])
    }
  }' "$work/results"

echo
say "bench/events: BenchmarkDeliveries"
echo "| benchmark | events delivered per second |"
echo "|---|---:|"
go test -run '^$' -bench '^BenchmarkDeliveries$' -benchtime 2000x ./app/ | awk '/^BenchmarkDeliveries/ {
  for (i = 2; i <= NF; i++) if ($(i+1) == "events/s") printf "| %s | %s |\n", $1, $i }'
