#!/usr/bin/env bash
# `make bench`: the service against two hand-written fiber + pgx servers on the same PostgreSQL
# table: bench/ceiling (the 1.0 list, with its six fields, cursor and Link, and the create as 1.2
# writes it) and bench/ceiling4 (the list as the spec alone describes it: four fields, one
# statement, c.JSON), bench/ceiling4 once more as ceiling4a, sending the service's answer (1.2's
# Pet, photos included) without its layers, and release 1.1.0's own service (built from its
# commit), whose list 1.2's must stay within 0.9 of.
# Each run is made with two load generators, wrk and bench/load (a closed loop in Go), and the
# servers take turns within each round, in an order that rotates from round to round, so that the
# ratios hold even when the machine is busy. Prints a Markdown table (docs/performance.md's "In brief"
# is one run of it) and checks the targets. About five minutes (the first run also seeds,
# about 30 s more); not part of CI.
#
# Settings (environment):
#   BENCH_PG           PostgreSQL server, without a database   postgres://postgres@127.0.0.1:5432
#   BENCH_DB           database of the benchmark (created)     petstore_bench
#   BENCH_PETS         pets in the table (seeded once)         1000000
#   BENCH_ORDERS       orders in the table (seeded once)       10000
#   BENCH_REDIS_URL    Redis for the second service instance   redis://127.0.0.1:6379/15 (empty: skip)
#   BENCH_DURATION     seconds per run                         3
#   BENCH_ROUNDS       rounds of alternating runs              3
#   BENCH_CONNECTIONS  connections of each load generator      32
#   BENCH_THREADS      wrk threads                             2
#   BENCH_POOL         database connections of each server     10
#   BENCH_TOOLS        load generators of list and create      wrk go
#   BENCH_SCENARIOS    which runs to make                      list deep page-time search create orders patch compressed after-seed
#   BENCH_AFTER_SEED_PETS  pets after-seed seeds                   100000
#
# after-seed seeds two fresh databases alike (BENCH_DB with _after_seed and _after_seed_analyzed
# appended, dropped first), analyzes the second, and measures the list on each in turn: right
# after the seed against after an explicit ANALYZE (see after_seed below).
# patch renames pets back and forth (PATCH /v1/pets/{id}, a real write each time); compressed
# reads a page of 100 pets plain, in gzip and in br: its rows show the bytes each answer took on
# the wire (headers included) and the throughput.
set -euo pipefail
cd "$(dirname "$0")/.."

PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
DB=${BENCH_DB:-petstore_bench}
PETS=${BENCH_PETS:-1000000}
ORDERS=${BENCH_ORDERS:-10000}
REDIS=${BENCH_REDIS_URL-redis://127.0.0.1:6379/15}
DURATION=${BENCH_DURATION:-3}
ROUNDS=${BENCH_ROUNDS:-3}
CONNS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
TOOLS=${BENCH_TOOLS:-wrk go}
# Five servers hold their pools open at once, on a PostgreSQL others share: 10 each (on 2 cores
# 8 and 20 measured alike; 4 made callers wait) leaves most of its 100 connections to others.
POOL=${BENCH_POOL:-10}
export PETSTORE_DB_MAX_OPEN_CONNS=$POOL PETSTORE_DB_MAX_IDLE_CONNS=$POOL
SCENARIOS=" ${BENCH_SCENARIOS:-list deep page-time search create orders patch compressed after-seed} "
AFTER_SEED_PETS=${BENCH_AFTER_SEED_PETS:-100000}

SERVICE=http://127.0.0.1:18080
SERVICE_REDIS=http://127.0.0.1:18081
CEILING=http://127.0.0.1:18090
CEILING4=http://127.0.0.1:18092
CEILING4A=http://127.0.0.1:18093
RELEASE11=http://127.0.0.1:18094
# Release 1.1.0 as it landed: the last commit before release 1.2's work.
RELEASE11_COMMIT=639cca7b4be617dc0b041086b8a56c0db27fd4fc
LIST='/v1/pets?limit=20&status=available'
# search (issue 27): a two-word search's first page against the unfiltered list's, one connection
# each (the time of a page, free of queueing), with the search's plan printed first.
ALL='/v1/pets?limit=20'
SEARCH_Q=${BENCH_SEARCH:-calm lab}
SEARCH="/v1/pets?limit=20&q=${SEARCH_Q// /+}"
BENCH_PET='Pet from make bench'

say() { printf '%s\n' "$*" >&2; }
die() { say "bench: $*"; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    for f in "$work"/*.log; do [ -s "$f" ] && { say "--- $f (last lines)"; tail -n 15 "$f" >&2; }; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Tools: wrk is installed when absent (Debian's package); the rest come with Go and PostgreSQL.
if ! command -v wrk >/dev/null; then
  say "bench: installing wrk"
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-upgrade wrk >/dev/null
fi
for tool in go curl psql pg_isready; do command -v $tool >/dev/null || die "$tool is required"; done
pg_isready -q -d "$PG/postgres" || die "PostgreSQL does not answer at $PG (set BENCH_PG)"

say "bench: building the service, the two ceilings, release 1.1.0 and the Go load generator"
for target in .:petstore ./bench/ceiling:ceiling ./bench/ceiling4:ceiling4 ./bench/load:load; do
  CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/${target#*:}" "${target%%:*}"
done
git cat-file -e "$RELEASE11_COMMIT^{commit}" 2>/dev/null ||
  die "release 1.1.0's commit $RELEASE11_COMMIT is not in this clone (a shallow one?): git fetch --unshallow"
mkdir "$work/release-1.1"
git archive "$RELEASE11_COMMIT" | tar -x -C "$work/release-1.1"
(cd "$work/release-1.1" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/petstore-1.1" .)

# after-seed (issue 25): the list right after `petstore seed`, against the same after an explicit
# ANALYZE. Two databases of their own are seeded alike, the second then analyzed, and a service on
# each answers in turn, the order alternating from round to round as the other scenarios', so
# that both sides of the ratio see the same machine. Autovacuum would gather the tables'
# statistics on its own a minute or so after a bulk load, on a cluster where it runs: it is kept
# off these tables, as on a cluster with autovacuum off, so that only what the service does
# itself counts. Prints its table and target to stdout, and the list's plan on each to stderr.
after_seed() {
  local fresh_db=${DB}_after_seed analyzed_db=${DB}_after_seed_analyzed
  local -A url_of key_of base_of=([fresh]=http://127.0.0.1:18085 [analyzed]=http://127.0.0.1:18086)
  local which db pid t0 round order out r_rps r_p50 r_bad p
  for which in fresh analyzed; do
    db=$fresh_db; [ $which = fresh ] || db=$analyzed_db
    url_of[$which]="$PG/$db?sslmode=disable"
    psql -q "$PG/postgres" -v ON_ERROR_STOP=1 -c "set client_min_messages = warning" -c "drop database if exists $db with (force)" \
      -c "create database $db" >/dev/null
    DATABASE_URL=${url_of[$which]} "$work/petstore" migrate >>"$work/after-seed.log" 2>&1
    for t in pets orders status_changes events; do
      psql -q "${url_of[$which]}" -v ON_ERROR_STOP=1 -c "alter table $t set (autovacuum_enabled = off)" >/dev/null
    done
    say "bench: after-seed: seeding $AFTER_SEED_PETS pets into the fresh database $db"
    DATABASE_URL=${url_of[$which]} "$work/petstore" seed --pets "$AFTER_SEED_PETS" >>"$work/after-seed.log" 2>&1
    [ $which = fresh ] || psql -q "${url_of[$which]}" -c analyze
    say "  the list's plan ($which): $(psql -q "${url_of[$which]}" -Atc "explain (costs off) select id, name, category_id,
      status, created_at, updated_at from pets where deleted_at is null and status = 'available' order by id limit 21" |
      sed 's/^ *//' | paste -sd ' ')"
  done
  for which in fresh analyzed; do
    key_of[$which]=$(DATABASE_URL=${url_of[$which]} "$work/petstore" keys create --name "bench after-seed" --plan enterprise \
      --per-minute 1000000000 --per-day 1000000000 --json 2>>"$work/after-seed.log" | sed -n 's/.*"key" *: *"\([^"]*\)".*/\1/p')
    [ -n "${key_of[$which]}" ] || die "after-seed: could not create an API key"
  done
  for which in fresh analyzed; do
    ! curl -so /dev/null "${base_of[$which]}/" || die "something already listens at ${base_of[$which]}"
    DATABASE_URL=${url_of[$which]} PETSTORE_ADDR=${base_of[$which]#http://} "$work/petstore" serve >>"$work/after-seed.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    t0=$(date +%s)
    until curl -fso /dev/null "${base_of[$which]}/readyz"; do
      kill -0 "$pid" 2>/dev/null || die "after-seed: the service on the $which database exited before it was ready"
      [ $(($(date +%s) - t0)) -lt 30 ] || die "after-seed: the service on the $which database is not ready after 30 s"
      sleep 0.05
    done
  done
  for round in $(seq "$ROUNDS"); do
    order="fresh analyzed"; [ $((round % 2)) = 1 ] || order="analyzed fresh"
    for which in $order; do
      out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -H "Authorization: Bearer ${key_of[$which]}" \
        -s bench/wrk.lua "${base_of[$which]}$LIST" | grep '^RESULT ') || die "after-seed: no result from wrk"
      read -r _ r_rps r_p50 _ _ r_bad _ _ <<<"$out"
      [ "$r_bad" = 0 ] || die "after-seed: $r_bad answers of the $which database's service were not 2xx"
      echo "$round $which $r_rps $r_p50" >>"$work/after-seed-results"
      say "  after-seed, round $round, $which: $r_rps req/s"
    done
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  awk -v pets="$AFTER_SEED_PETS" -v list="$LIST" -v conns="$CONNS" -v threads="$THREADS" -v secs="$DURATION" -v rounds="$ROUNDS" '
    function median(list,   a, n, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
      return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    { rps[$1, $2] = $3; all[$2] = all[$2] " " $3; p50[$2] = p50[$2] " " $4 }
    END {
      for (r = 1; r <= rounds; r++) ratios = ratios " " rps[r, "fresh"] / rps[r, "analyzed"]
      ratio = median(ratios)
      printf "\nAfter a seed of %d pets into a fresh database, autovacuum off on its tables: GET %s,\n", pets, list
      printf "%d connections (wrk, %d threads), %d s per run, %d rounds alternating with the same database analyzed; medians.\n\n", conns, threads, secs, rounds
      print "| database | req/s | p50 |"
      print "|---|---:|---:|"
      printf "| right after the seed | %.0f | %.2f ms |\n", median(all["fresh"]), median(p50["fresh"]) / 1000
      printf "| after ANALYZE | %.0f | %.2f ms |\n\n", median(all["analyzed"]), median(p50["analyzed"]) / 1000
      printf "  %-62s %8.2f >= 0.8    %s\n", "list right after a seed vs after ANALYZE (req/s, per round)", ratio, ratio >= 0.8 ? "PASS" : "MISS"
    }' "$work/after-seed-results"
}
if [[ $SCENARIOS == *" after-seed "* ]]; then
  after_seed
  SCENARIOS=${SCENARIOS/ after-seed / }
  [[ $SCENARIOS == *[![:space:]]* ]] || exit 0
fi

psql -q "$PG/postgres" -Atc "select 1 from pg_database where datname = '$DB'" | grep -q 1 \
  || psql -q "$PG/postgres" -c "create database $DB" >/dev/null
export DATABASE_URL="$PG/$DB?sslmode=disable"
sql() { psql -q "$DATABASE_URL" -v ON_ERROR_STOP=1 -Atc "$1"; }

"$work/petstore" migrate 2>>"$work/migrate.log"
# The pets the previous run's POSTs (and its PATCH target) added go, so that every run measures the same table.
removed=$(sql "with d as (delete from pets where name like '$BENCH_PET%' returning 1) select count(*) from d")
[ "$removed" = 0 ] || sql 'vacuum analyze pets'
count=$(sql 'select count(*) from pets')
if [ "$count" -lt "$PETS" ]; then
  say "bench: seeding up to $PETS pets (once; later runs reuse them)"
  # seed tops up to the numbers given, so it is only worth running when pets are missing.
  "$work/petstore" seed --pets "$PETS" --orders "$ORDERS" 2>>"$work/seed.log" >&2
  # Written out now, so the seeding's disk writes do not land in the measurements.
  sql 'vacuum analyze'
  sql 'checkpoint'
fi
count=$(sql 'select count(*) from pets')
# The cursor of the page that starts 99% of the way down the filtered list.
deep_after=$(sql "select id from pets where status = 'available' order by id
                  offset (select count(*) * 99 / 100 from pets where status = 'available') limit 1")
DEEP="$LIST&cursor=$(printf 'v1:%s' "$deep_after" | base64 | tr '+/' '-_' | tr -d '=\n')"

# An Enterprise key whose limits no run reaches: the service's numbers include authentication and
# counting, never a refusal.
key=$("$work/petstore" keys create --name "bench $(date -u +%FT%TZ)" --plan enterprise \
  --per-minute 1000000000 --per-day 1000000000 --json 2>>"$work/keys.log" \
  | sed -n 's/.*"key" *: *"\([^"]*\)".*/\1/p')
[ -n "$key" ] || die "could not create an API key"
auth=(-H "Authorization: Bearer $key")

# launch NAME URL COMMAND...: starts COMMAND and waits until URL/readyz answers 200; sets pid and
# ready_ms (from the start of the process to its first ready answer).
launch() {
  local name=$1 url=$2 t0
  shift 2
  ! curl -so /dev/null "$url/" || die "something already listens at $url"
  t0=$(date +%s%N)
  "$@" >>"$work/$name.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  until curl -fso /dev/null "$url/readyz"; do
    kill -0 "$pid" 2>/dev/null || die "$name exited before it was ready"
    [ $(($(date +%s%N) - t0)) -lt 30000000000 ] || die "$name not ready after 30 s"
    sleep 0.005
  done
  ready_ms=$((($(date +%s%N) - t0) / 1000000))
}
stop() { kill -TERM "$1" && wait "$1" || true; }

say "bench: time to ready on the existing database ($count pets), three starts"
ready=()
for i in 1 2 3; do
  launch service "$SERVICE" env PETSTORE_ADDR=127.0.0.1:18080 "$work/petstore" serve
  ready+=("$ready_ms")
  [ $i = 3 ] || stop "$pid"
done
service_pid=$pid
launch ceiling "$CEILING" env CEILING_ADDR=127.0.0.1:18090 DATABASE_URL="$DATABASE_URL&pool_max_conns=$POOL" "$work/ceiling"
ceiling_pid=$pid
launch ceiling4 "$CEILING4" env CEILING_ADDR=127.0.0.1:18092 DATABASE_URL="$DATABASE_URL&pool_max_conns=$POOL" "$work/ceiling4"
ceiling4_pid=$pid
# ceiling4a: bench/ceiling4 sending the service's answer (release 1.2's Pet, the service's
# headers), to tell what the answer costs from what the service's layers cost.
launch ceiling4a "$CEILING4A" env CEILING_ADDR=127.0.0.1:18093 CEILING4_ANSWER=service \
  DATABASE_URL="$DATABASE_URL&pool_max_conns=$POOL" "$work/ceiling4"
ceiling4a_pid=$pid
# Release 1.1.0 reads the same tables (1.2 only added to them) with the same key.
launch release-1.1 "$RELEASE11" env PETSTORE_ADDR=127.0.0.1:18094 "$work/petstore-1.1" serve
release11_pid=$pid
redis_pid=
if [ -n "$REDIS" ]; then
  launch service-redis "$SERVICE_REDIS" env PETSTORE_ADDR=127.0.0.1:18081 REDIS_URL="$REDIS" PETSTORE_REDIS_PREFIX=petstore-bench: "$work/petstore" serve
  redis_pid=$pid
  # Only an instance that counts in Redis (its limiter reports ready, not degraded) is worth a row.
  if ! curl -fs "$SERVICE_REDIS/readyz" | grep -q '"ratelimit":"ok"'; then
    say "bench: the service does not count in Redis here (its /readyz says so); skipping its rows"
    stop "$redis_pid"
    redis_pid=
  fi
fi

# run ROUND SCENARIO SERVER URL [BODY]: one run of the load generator $TOOL (wrk, or go for
# bench/load); appends its result line to $work/results, with the CPU time the server process
# spent per request (user + system), which other load on the machine disturbs far less than
# throughput. WRK_METHOD, WRK_CONTENT_TYPE, WRK_BODY2 and WRK_PATHS go to wrk.lua; WRK_ACCEPT,
# when set, is sent as Accept-Encoding.
declare -A pid_of
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() {
  local round=$1 scenario=$2 server=$3 url=$4 body=${5-} tool=${TOOL:-wrk} out c0 c1 conns=${WRK_CONNS:-$CONNS} accept=() post=()
  [ -z "${WRK_ACCEPT-}" ] || accept=(-H "Accept-Encoding: $WRK_ACCEPT")
  [ -z "$body" ] || post=(-m POST -body "$body")
  c0=$(cpu_ticks "${pid_of[$server]}")
  case $tool in
  wrk) out=$(WRK_BODY=$body wrk -t"$((conns < THREADS ? conns : THREADS))" -c"$conns" -d"${DURATION}s" --latency "${auth[@]}" \
    "${accept[@]}" -s bench/wrk.lua "$url") ;;
  go) out=$("$work/load" -c "$conns" -d "${DURATION}s" "${auth[@]}" "${accept[@]}" "${post[@]}" "$url") ;;
  *) die "unknown load generator $tool in BENCH_TOOLS" ;;
  esac || die "$tool failed on $url"
  c1=$(cpu_ticks "${pid_of[$server]}")
  out=$(grep '^RESULT ' <<<"$out") || die "no result from $tool on $url"
  echo "$round $scenario $server $tool ${out#RESULT } $(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" \
    -v n="$(cut -d' ' -f5 <<<"$out")" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')" >>"$work/results"
  say "  $scenario $server ($tool): $(cut -d' ' -f2 <<<"$out") req/s"
  if [ "$(cut -d' ' -f6 <<<"$out")" != 0 ] && [ -z "$body" ]; then
    say "  warning: $(cut -d' ' -f6 <<<"$out") answers were not 2xx; one now: $(curl -s -w ' (%{http_code})' "${auth[@]}" "$url" | head -c 300)"
  fi
}

declare -A base_of=([ceiling]=$CEILING [ceiling4]=$CEILING4 [ceiling4a]=$CEILING4A [release-1.1]=$RELEASE11 [service]=$SERVICE
  [service+redis]=$SERVICE_REDIS)
# Every server must answer the measured requests with 200 before its numbers mean anything.
for base in "$SERVICE" "$CEILING" "$CEILING4" "$CEILING4A" "$RELEASE11" ${redis_pid:+"$SERVICE_REDIS"}; do
  status=$(curl -s -o "$work/check.json" -w '%{http_code}' "${auth[@]}" "$base$LIST")
  [ "$status" = 200 ] || die "GET $base$LIST answers $status: $(head -c 300 "$work/check.json")"
done
# The pets the patch scenario renames back and forth, one per connection, so that it measures
# changes rather than the wait for one row's lock.
patch_paths=
for _ in $(seq "$CONNS"); do
  id=$(curl -s "${auth[@]}" -H 'Content-Type: application/json' -d "{\"name\":\"$BENCH_PET\",\"categoryId\":1}" \
    "$SERVICE/v1/pets" | sed -n 's/^{"id":\([0-9]*\).*/\1/p')
  [ -n "$id" ] || die "could not create the pets the patch scenario changes"
  patch_paths+=" /v1/pets/$id"
done
pid_of=([service]=$service_pid [ceiling]=$ceiling_pid [ceiling4]=$ceiling4_pid [ceiling4a]=$ceiling4a_pid
  [release-1.1]=$release11_pid [service+redis]=$redis_pid)
say "bench: warming up"
for server in ceiling ceiling4 ceiling4a release-1.1 service ${redis_pid:+service+redis}; do
  WRK_BODY= wrk -t1 -c4 -d1s "${auth[@]}" "${base_of[$server]}$LIST" >/dev/null
done

if [[ $SCENARIOS == *" search "* ]]; then
  terms=$(sed 's/\([^ ]*\)/\1:*/g; s/ / \& /g' <<<"$SEARCH_Q")
  match="search_vector @@ to_tsquery('petstore_search'::regconfig, '$terms')"
  say "bench: GET $SEARCH finds $(sql "select count(*) from pets where deleted_at is null and $match") of $count pets; its plan (the service's first way, the walk):"
  psql -q "$DATABASE_URL" -Atc "explain (analyze, costs off, timing off) select * from pets where deleted_at is null
    and $match order by id limit 21" | sed 's/^/    /' >&2
fi

# rotate N WORD...: the words turned left N times, so that each server of a scenario goes first
# in turn from one round to the next.
rotate() {
  local n=$1 a
  shift
  a=("$@")
  n=$((n % ${#a[@]}))
  echo "${a[@]:n}" "${a[@]:0:n}"
}
for round in $(seq "$ROUNDS"); do
  say "bench: round $round of $ROUNDS"
  for scenario in $SCENARIOS; do
    case $scenario in
    list)
      for tool in $TOOLS; do
        for server in $(rotate $((round - 1)) ceiling4 service ceiling ceiling4a release-1.1 ${redis_pid:+service+redis}); do
          TOOL=$tool run "$round" list "$server" "${base_of[$server]}$LIST"
        done
      done ;;
    deep)
      for server in $(rotate $((round - 1)) ceiling service); do
        run "$round" deep "$server" "${base_of[$server]}$DEEP"
      done ;;
    create)
      for tool in $TOOLS; do
        for server in $(rotate $((round - 1)) ceiling service); do
          TOOL=$tool run "$round" create "$server" "${base_of[$server]}/v1/pets" "{\"name\":\"$BENCH_PET\",\"categoryId\":1}"
        done
      done ;;
    page-time)
      # The time of one page, free of queueing: one connection, the first page and then one 99%
      # of the way down the list.
      WRK_CONNS=1 run "$round" first-page-1-conn service "$SERVICE$LIST"
      WRK_CONNS=1 run "$round" deep-page-1-conn service "$SERVICE$DEEP" ;;
    search)
      WRK_CONNS=1 run "$round" all-first-page-1-conn service "$SERVICE$ALL"
      WRK_CONNS=1 run "$round" search-first-page-1-conn service "$SERVICE$SEARCH" ;;
    orders) run "$round" orders service "$SERVICE/v1/store/orders?limit=20" ;;
    patch)
      WRK_METHOD=PATCH WRK_CONTENT_TYPE=application/merge-patch+json WRK_BODY2="{\"name\":\"$BENCH_PET (renamed)\"}" \
        WRK_PATHS=$patch_paths run "$round" patch service "$SERVICE${patch_paths%% *}" "{\"name\":\"$BENCH_PET\"}" ;;
    compressed)
      for enc in identity gzip br; do
        WRK_ACCEPT=$enc run "$round" "list-100-$enc" service "$SERVICE/v1/pets?limit=100"
      done ;;
    *) die "unknown scenario $scenario in BENCH_SCENARIOS" ;;
    esac
  done
done

hwm() { awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
peak=$(hwm "$service_pid")
peak_ceiling=$(hwm "$ceiling_pid")
peak_ceiling4=$(hwm "$ceiling4_pid")
peak_ceiling4a=$(hwm "$ceiling4a_pid")
peak_release11=$(hwm "$release11_pid")
peak_redis=; [ -z "$redis_pid" ] || peak_redis=$(hwm "$redis_pid")

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1)
cat <<EOF

Machine: $(nproc) CPUs ($cpu), $(awk '/^MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;
PostgreSQL $(sql 'show server_version' | cut -d' ' -f1) at $PG; $count pets.
$CONNS connections (load generators: $TOOLS; wrk with $THREADS threads), ${DURATION} s per run, $ROUNDS rounds, the servers' order rotating; medians of the rounds.

EOF
# Each ratio is the median of the ratios within a round (the same load generator, one run after
# the other), against bench/ceiling ("vs ceiling") and bench/ceiling4 ("vs ceiling4"). The table
# goes to stdout; the ratios the targets read go to $work/ratios.
awk -v rounds="$ROUNDS" -v ratios="$work/ratios" '
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
  }
  function add(k, v) { vals[k] = (k in vals) ? vals[k] " " v : v }
  # The median over the rounds of field f (1 req/s, 2 p99, 3 CPU per request, 4 p50) of key
  # divided by the same of ceil; "" when they never ran in the same round.
  function ratio(key, ceil, f,   r, out, a, b) {
    out = ""
    for (r = 1; r <= rounds; r++) if ((r, key) in data && (r, ceil) in data) {
      split(data[r, key], a, " "); split(data[r, ceil], b, " ")
      out = out " " a[f] / b[f]
    }
    return out == "" ? "" : median(out)
  }
  function fmt(v) { return v == "" ? "" : sprintf("%.2f", v) }
  function keep(key, what, v) { if (v != "") print key, what, v > ratios }
  {
    round = $1; key = $2 "/" $3 "/" $4
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    add(key " rps", $5); add(key " p50", $6); add(key " p99", $7); add(key " err", $9 + $10); add(key " bytes", $11); add(key " cpu", $12)
    data[round, key] = $5 " " $7 " " $12 " " $6
  }
  END {
    print "| scenario | server | load | req/s | p50 | p99 | req/s vs ceiling | req/s vs ceiling4 | p99 vs ceiling4 | server CPU per request | CPU vs ceiling4 | bytes per answer | errors |"
    print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
      key = order[i]; split(key, parts, "/"); scenario = parts[1]; server = parts[2]; tool = parts[3]
      c6 = scenario "/ceiling/" tool; c4 = scenario "/ceiling4/" tool; c4a = scenario "/ceiling4a/" tool
      rr6 = rr4 = pr4 = cr4 = ""
      if (server !~ /^ceiling4?$/) { rr6 = ratio(key, c6, 1); rr4 = ratio(key, c4, 1); pr4 = ratio(key, c4, 2); cr4 = ratio(key, c4, 3) }
      if (server == "service" || server == "ceiling4a") {
        keep(key, "rps-release-1.1", ratio(key, scenario "/release-1.1/" tool, 1)); keep(key, "cpu-release-1.1", ratio(key, scenario "/release-1.1/" tool, 3))
      }
      if (server == "service") { keep(key, "rps-ceiling4a", ratio(key, c4a, 1)); keep(key, "cpu-ceiling4a", ratio(key, c4a, 3)) }
      errs = 0; split(vals[key " err"], e, " "); for (j in e) errs += e[j]
      printf "| %s | %s | %s | %.0f | %.2f ms | %.2f ms | %s | %s | %s | %.0f µs | %s | %.0f | %d |\n", scenario, server, tool,
        median(vals[key " rps"]), median(vals[key " p50"]) / 1000, median(vals[key " p99"]) / 1000,
        fmt(rr6), fmt(rr4), fmt(pr4), median(vals[key " cpu"]), fmt(cr4), median(vals[key " bytes"]), errs
      keep(key, "rps-ceiling", rr6); keep(key, "rps-ceiling4", rr4); keep(key, "p99-ceiling4", pr4); keep(key, "cpu-ceiling4", cr4)
      keep(key, "rps", median(vals[key " rps"]))
    }
    # A deep page against the first page, both filtered the same way, on one connection.
    keep("deep-page-1-conn/service/wrk", "p50-first-page", ratio("deep-page-1-conn/service/wrk", "first-page-1-conn/service/wrk", 4))
    # A two-word search, first page, against the unfiltered list, on one connection.
    keep("search-first-page-1-conn/service/wrk", "p50-all", ratio("search-first-page-1-conn/service/wrk", "all-first-page-1-conn/service/wrk", 4))
  }' "$work/results"
touch "$work/ratios"
ratio() { awk -v k="$1" -v m="$2" '$1 == k && $2 == m { v = $3 } END { print v == "" ? "-" : v }' "$work/ratios"; }
deep_ratio=$(ratio deep-page-1-conn/service/wrk p50-first-page)
search_ratio=$(ratio search-first-page-1-conn/service/wrk p50-all)

max_ready=$(printf '%s\n' "${ready[@]}" | sort -n | tail -n1)
cat <<EOF

Peak memory (VmHWM): service ${peak} MB$([ -z "$peak_redis" ] || echo ", service with Redis ${peak_redis} MB"), ceiling ${peak_ceiling} MB, ceiling4 ${peak_ceiling4} MB, ceiling4a ${peak_ceiling4a} MB, release 1.1.0 ${peak_release11} MB.
Time to ready on the existing database: ${ready[*]} ms (three starts).
Deep page (99% down the list) against the first page, service, one connection: $deep_ratio times the median time.

EOF
# The service's req/s before issue 25 simplified its paths (medians of make bench, 2026-11-28,
# docs/performance.md), which it must stay within 10% of; BENCH_BEFORE gives another run's.
BEFORE=${BENCH_BEFORE:-list/wrk=1782 list/go=1175 create/wrk=290 create/go=261}
before() { # SCENARIO/TOOL: this run's req/s over the figure before
  local rps was
  rps=$(ratio "${1%/*}/service/${1#*/}" rps)
  was=$(tr ' ' '\n' <<<"$BEFORE" | sed -n "s#^$1=##p")
  if [ "$rps" = - ] || [ -z "$was" ]; then echo -; else awk -v a="$rps" -v b="$was" 'BEGIN { print a / b }'; fi
}
check() { # NAME VALUE OP LIMIT
  if [ "$2" = - ]; then printf '  %-62s %s\n' "$1" "not measured"; return; fi
  if awk -v v="$2" -v l="$4" "BEGIN { exit !(v $3 l) }"; then verdict=PASS; else verdict=MISS; fi
  printf '  %-62s %8.2f %s %-6s %s\n' "$1" "$2" "$3" "$4" "$verdict"
}
echo "Targets (authentication, the limiter, the access log and metrics on), with each load generator:"
for tool in $TOOLS; do
  check "list req/s vs ceiling4, in-memory limiter ($tool)" "$(ratio list/service/$tool rps-ceiling4)" '>=' 0.9
  check "list p99 vs ceiling4, in-memory limiter ($tool)" "$(ratio list/service/$tool p99-ceiling4)" '<=' 1.5
  check "list CPU per request vs ceiling4, in-memory limiter ($tool)" "$(ratio list/service/$tool cpu-ceiling4)" '<=' 1.2
  check "list req/s vs ceiling4, Redis limiter ($tool)" "$(ratio list/service+redis/$tool rps-ceiling4)" '>=' 0.75
  check "list req/s vs ceiling4a, the same answer by hand ($tool)" "$(ratio list/service/$tool rps-ceiling4a)" '>=' 1.0
  check "create req/s vs ceiling, the same writes by hand ($tool)" "$(ratio create/service/$tool rps-ceiling)" '>=' 0.9
  check "list req/s vs release 1.1.0's list ($tool)" "$(ratio list/service/$tool rps-release-1.1)" '>=' 0.9
  for scenario in list create; do
    check "$scenario req/s vs the figure before issue 25 ($tool)" "$(before "$scenario/$tool")" '>=' 0.9
  done
done
check "deep page vs first page (time)" "$deep_ratio" '<=' 1.2
# "The same order of time" (docs/design.md, "Release 1.2.0: what it adds"): within ten times the unfiltered page's.
check "two-word search's first page vs the list's (time)" "$search_ratio" '<' 10
check "peak memory of the service (MB)" "$peak" '<' 150
check "time to ready, slowest of three (ms)" "$max_ready" '<' 1000
show() { # NAME VALUE
  if [ "$2" = - ]; then printf '  %-62s %s\n' "$1" "not measured"; else printf '  %-62s %8.2f\n' "$1" "$2"; fi
}
echo
echo "The list's answer without the service's layers (ceiling4a; not targets, to read them by):"
for tool in $TOOLS; do
  show "ceiling4a req/s vs ceiling4: what the answer costs ($tool)" "$(ratio list/ceiling4a/$tool rps-ceiling4)"
  show "ceiling4a CPU per request vs ceiling4 ($tool)" "$(ratio list/ceiling4a/$tool cpu-ceiling4)"
  show "service req/s vs ceiling4a: what the layers cost ($tool)" "$(ratio list/service/$tool rps-ceiling4a)"
  show "service CPU per request vs ceiling4a ($tool)" "$(ratio list/service/$tool cpu-ceiling4a)"
  show "ceiling4a req/s vs release 1.1.0: 1.2's answer by hand ($tool)" "$(ratio list/ceiling4a/$tool rps-release-1.1)"
  show "service CPU per request vs release 1.1.0 ($tool)" "$(ratio list/service/$tool cpu-release-1.1)"
done

# What events cost POST /v1/pets and order placement, and deliveries per second (issue 15). Its
# servers take ports of this script's, and pick their store by DATABASE_URL: this script's servers
# stop first, and its DATABASE_URL stays here.
if [ -z "${BENCH_SKIP_EVENTS-}" ]; then
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  env -u DATABASE_URL bash bench/events.sh
fi
