# Shared by the bash scripts in scripts/: source it first, `source "$(dirname "$0")/lib.sh"`.
# Building, a work directory that cleans up after itself, servers started and waited for, the
# packages a script needs. Safe under `set -euo pipefail`.

# Every script works from the repository's root (Config/, Fixtures/, .build/).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# ---- packages ---------------------------------------------------------------------------------

# apt_install PACKAGE…: apt-get as root, through sudo otherwise.
apt_install() {
    local sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "installing $* with apt-get" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# need_commands COMMAND[:PACKAGE]…: installs the package of each command that is not on the PATH
# (the package is named like the command unless given), so a second run installs nothing.
need_commands() {
    local spec missing=()
    for spec in "$@"; do
        command -v "${spec%%:*}" >/dev/null 2>&1 || missing+=("${spec#*:}")
    done
    if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
}

# pip_install SPEC…: a system Python that refuses pip (PEP 668) gets the packages for this user.
pip_install() {
    python3 -m pip install --quiet --disable-pip-version-check "$@" \
        || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$@"
}

# ---- building ---------------------------------------------------------------------------------

# trellis_build [release|debug] [PRODUCT]: builds PRODUCT (default trellis) and sets BIN to its
# path. A script's --no-build sets NO_BUILD=1: then the binary must already be there. The build's
# output is shown only when it fails; it takes minutes, so say so first. TRELLIS_BUILD_PATH names
# another build directory than .build/ (`swift build --build-path`), e.g. one per worktree.
trellis_build() {
    local configuration=${1:-release} product=${2:-trellis} out path=()
    [ -z "${TRELLIS_BUILD_PATH:-}" ] || path=(--build-path "$TRELLIS_BUILD_PATH")
    if [ -z "${NO_BUILD:-}" ]; then
        echo "building $product ($configuration)…" >&2
        out=$(swift build "${path[@]}" -c "$configuration" --product "$product" 2>&1) || { printf '%s\n' "$out" >&2; die "swift build failed"; }
    fi
    BIN="$(swift build "${path[@]}" -c "$configuration" --show-bin-path)/$product"
    [ -x "$BIN" ] || die "no $BIN: build it first (without --no-build)"
}

# ---- a work directory and clean-up --------------------------------------------------------------

# One EXIT trap per script runs these, last registered first: servers stop before their directory
# goes. Each runs even when one before it fails.
CLEANUPS=()
run_cleanups() {
    local i
    for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${CLEANUPS[i]}" || true; done
}
trap run_cleanups EXIT
# Ctrl-C or a kill ends the script through `exit`, so the EXIT trap runs then too.
trap 'exit 130' INT
trap 'exit 143' TERM

# on_exit COMMAND [ARGUMENT…]: runs it when the script ends, however it ends.
on_exit() { CLEANUPS+=("$(printf '%q ' "$@")"); }

# stop_process PID: kill and reap; quiet when it has already gone.
stop_process() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# make_workdir PREFIX: a new /tmp/PREFIX.XXXXXX in WORK, removed when the script ends.
make_workdir() {
    WORK=$(mktemp -d "/tmp/$1.XXXXXX")
    on_exit rm -rf "$WORK"
}

# ---- servers ----------------------------------------------------------------------------------

# free_port: a TCP port nothing listens on now (the kernel's choice).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# add_admin_token CONFIG_DIR NAME ROLE: a new admin token in TOKEN, its SHA-256 added to
# CONFIG_DIR/server.json as `trellis token new` prints it.
add_admin_token() {
    TOKEN="trl_$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
    python3 - "$1/server.json" "$2" "$3" "$TOKEN" <<'PY'
import hashlib, json, os, sys
path, name, role, token = sys.argv[1:]
settings = json.load(open(path)) if os.path.exists(path) else {}
entry = {"name": name, "sha256": hashlib.sha256(token.encode()).hexdigest(), "role": role}
settings.setdefault("admin", {}).setdefault("tokens", []).append(entry)
json.dump(settings, open(path, "w"), indent=2)
PY
}

# Each started server's pid and log files by URL, for wait_ready to tell why it never got ready.
declare -A SERVER_PID=() SERVER_LOGS=()

# start_trellis NAME CONFIG_DIR PORT [SERVE-OPTION…]: `$BIN serve` on 127.0.0.1:PORT with the
# data directory $WORK/data-NAME, standard output in $WORK/NAME.log (the access log), standard
# error in $WORK/NAME.err; stopped when the script ends. Sets TRELLIS_PID and TRELLIS_URL.
start_trellis() {
    local name=$1 config=$2 port=$3; shift 3
    mkdir -p "$WORK/data-$name"
    "$BIN" serve --config "$config" --host 127.0.0.1 --port "$port" --data-dir "$WORK/data-$name" "$@" \
        >"$WORK/$name.log" 2>"$WORK/$name.err" &
    TRELLIS_PID=$!
    TRELLIS_URL="http://127.0.0.1:$port"
    on_exit stop_process "$TRELLIS_PID"
    SERVER_PID[$TRELLIS_URL]=$TRELLIS_PID
    SERVER_LOGS[$TRELLIS_URL]="$WORK/$name.log $WORK/$name.err"
}

# wait_ready URL [SECONDS [LOG…]]: polls URL/readyz (default 30 s); when it gives up, or the
# server started there has exited, prints the logs (by default start_trellis's) and fails.
wait_ready() {
    local url=$1 deadline=$((SECONDS + ${2:-30})) pid=${SERVER_PID[$1]:-} log logs=${SERVER_LOGS[$1]:-}
    [ $# -le 2 ] || logs="${*:3}"
    until curl -fs -o /dev/null "$url/readyz"; do
        if [ "$SECONDS" -ge "$deadline" ] || { [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; }; then
            echo "$url/readyz did not answer (within ${2:-30} s, or the server exited)" >&2
            for log in $logs; do echo "--- $log" >&2; cat "$log" >&2 || true; done
            return 1
        fi
        sleep 0.1
    done
}

# start_postgres DIR: a throwaway PostgreSQL as scripts/cluster makes one (Debian's `postgresql`,
# installed when missing): initdb in DIR/pg (DIR must be searchable by others), trust
# authentication for the user `trellis`, loopback only on a free port, the database `trellis`;
# stopped when the script ends. As root it runs as the `postgres` user (initdb refuses root).
# Sets PG_URL (what TRELLIS_STORAGE_URL takes) and PG_PID (the postmaster's).
start_postgres() {
    local dir=$1/pg candidate port
    PG_BIN=
    for candidate in "$(pg_config --bindir 2>/dev/null || true)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -rn); do
        if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then PG_BIN=$candidate; break; fi
    done
    if [ -z "$PG_BIN" ]; then
        apt_install postgresql
        PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -t/ -k5 -rn | head -1)
    fi
    mkdir -p "$dir"
    [ "$(id -u)" != 0 ] || chown postgres: "$dir"
    port=$(free_port)
    pg_program initdb -D "$dir/data" -A trust -U trellis -E UTF8 --locale=C --no-instructions >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\n" "$port" "$dir" >>"$dir/data/postgresql.conf"
    pg_program pg_ctl -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
        || { tail -20 "$dir/server.log" >&2; die "PostgreSQL did not start (log: $dir/server.log)"; }
    on_exit stop_postgres "$dir/data"
    PG_PID=$(head -1 "$dir/data/postmaster.pid")
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U trellis trellis
    PG_URL="postgres://trellis@127.0.0.1:$port/trellis"
}

stop_postgres() { pg_program pg_ctl -D "$1" -w -t 30 -m fast stop >/dev/null 2>&1; }

# pg_program PROGRAM ARGUMENT…: one of start_postgres's PostgreSQL programs, as the `postgres`
# user when this is root, from / (which that user can enter), without the caller's PG* variables.
pg_program() {
    local program=$PG_BIN/$1; shift
    local runner=()
    [ "$(id -u)" != 0 ] || runner=(runuser -u postgres --)
    (cd / && env $(env | sed -n 's/^\(PG[A-Z_]*\)=.*/-u \1/p') "${runner[@]}" "$program" "$@")
}

# nginx_conf [MAIN-DIRECTIVE…] <HTTP-BLOCK-BODY: writes $WORK/nginx.conf — one worker, its error
# log and pid file in $WORK, the directives given, events with 1024 connections unless an
# `events { … }` is among them — and lets nginx's workers (www-data) read $WORK.
nginx_conf() {
    local events='events { worker_connections 1024; }' directive
    for directive in "$@"; do case "$directive" in events*) events= ;; esac; done
    {
        printf '%s\n' 'worker_processes 1;' "error_log $WORK/nginx-error.log;" "pid $WORK/nginx.pid;" "$@"
        [ -z "$events" ] || echo "$events"
        printf 'http {\n%s\n}\n' "$(cat)"
    } >"$WORK/nginx.conf"
    chmod -R a+rX "$WORK"
}

# start_nginx [MAIN-DIRECTIVE…] <HTTP-BLOCK-BODY: nginx_conf, then nginx as a daemon, stopped when
# the script ends. Sets NGINX_WORKER, the worker's pid (where the requests' CPU time goes).
start_nginx() {
    nginx_conf 'daemon on;' "$@"
    on_exit stop_nginx
    nginx -c "$WORK/nginx.conf"
    local _
    for _ in $(seq 50); do [ -s "$WORK/nginx.pid" ] && NGINX_WORKER=$(pgrep -P "$(cat "$WORK/nginx.pid")" | head -1) && break; sleep 0.1; done
    [ -n "${NGINX_WORKER:-}" ] || { cat "$WORK/nginx-error.log" >&2; die "nginx did not start"; }
}
stop_nginx() { [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; sleep 0.2; }

# ---- measuring --------------------------------------------------------------------------------

# cpu_ticks PID: clock ticks of user + system time the process has used.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# tree_ticks PID: clock ticks of user + system time the process and all its descendants have used,
# the ones that ended included (a PostgreSQL cluster from its postmaster: every backend).
tree_ticks() {
    python3 - "$1" <<'PY'
import os, sys
stats = {}
for name in os.listdir("/proc"):
    if name.isdigit():
        try:
            fields = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile: its time is in its parent's children's time
        stats[int(name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
tree, grown = {int(sys.argv[1])}, True
while grown:
    grown = False
    for pid, (parent, _) in stats.items():
        if parent in tree and pid not in tree:
            tree.add(pid)
            grown = True
print(sum(stats[pid][1] for pid in tree if pid in stats))
PY
}

# keepalive_gets PORT: each request target on standard input (one a line) sent as a GET over one
# keep-alive connection, each answer read whole before the next; fails on any status but 200.
keepalive_gets() {
    python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for i, line in enumerate(sys.stdin):
    target = line.strip()
    s.sendall(f"GET {target} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk: sys.exit(f"connection closed after {i} requests")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 200"): sys.exit(f"{target}: {head.splitlines()[0].decode()}")
    length = int(next(l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")).split(b":")[1])
    while len(body) < length: body += s.recv(65536)
' "$1"
}

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# warn_if_disturbed REQUESTS_PER_SECOND: nginx's rate on this 2-core machine is usually 75–90k;
# far below, something else was running and absolute figures mean little.
warn_if_disturbed() {
    awk -v n="$1" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN { if (n < 60000) printf "warning: nginx ran at %.0f req/s, far below its usual 75–90k on this machine; the run was disturbed (load %s), so read the ratios, not the absolute figures, and rerun before reporting\n", n, load }'
}

# ---- fuzzing ----------------------------------------------------------------------------------
# A harness is built by swiftc alone, without the package: a module's sources are found in its
# folder (recursively), so moving or adding a file needs no change here; what cannot be compiled
# without the package is left out by rule (fuzz_sources, fuzz_compile), and said.

FUZZ_OUT=fuzz-out
SWIFTC="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
# The package's C modules that are a header and nothing to link (CPrefetch, CTrellisLinux): swiftc
# finds them by their folders, so the files that import them are fuzzed too.
FUZZ_INCLUDES=()
for map in Sources/C*/module.modulemap; do
    grep -q '^[[:space:]]*link ' "$map" || FUZZ_INCLUDES+=(-I "$(dirname "$map")")
done

# compiles_alone MODULE: whether swiftc finds MODULE without the package (Glibc, Dispatch,
# CPrefetch: yes; Logging, CZlib: no).
declare -A COMPILES_ALONE=()
compiles_alone() {
    if [ -z "${COMPILES_ALONE[$1]:-}" ]; then
        COMPILES_ALONE[$1]=no
        if echo "import $1" | "$SWIFTC" "${FUZZ_INCLUDES[@]}" -typecheck - >/dev/null 2>&1; then COMPILES_ALONE[$1]=yes; fi
    fi
    [ "${COMPILES_ALONE[$1]}" = yes ]
}

# fuzz_sources DIR HARNESS_MODULE MODULE…: every Swift file of the MODULEs, copied into a fresh DIR
# to be compiled as one module named HARNESS_MODULE: their imports of each other are dropped and a
# name qualified by one of them (TrellisLayout.isBaselineLayout) takes the harness module's. A file
# that imports a module swiftc does not have on its own is left out.
fuzz_sources() {
    local dir=$1 harness=$2; shift 2
    local modules module file import skip
    modules=$(IFS='|'; echo "$*")
    rm -rf "$dir"
    mkdir -p "$dir"
    for module in "$@"; do
        [ -d "Sources/$module" ] || die "no Sources/$module"
        while IFS= read -r file; do
            skip=
            for import in $(sed -nE 's/^(@[A-Za-z_]+ +)*import +((struct|class|enum|protocol|func|var|let|typealias) +)?([A-Za-z_0-9]+).*/\4/p' "$file"); do
                [[ $import =~ ^($modules)$ ]] || compiles_alone "$import" || skip=$import
            done
            if [ -n "$skip" ]; then echo "left out (imports $skip): $file" >&2; continue; fi
            sed -E -e "/^(@[A-Za-z_]+ +)*import +($modules)([[:space:]]|\$)/d" -e "s/\\b($modules)\\./$harness./g" \
                "$file" >"$dir/${module}_$(echo "${file#Sources/"$module"/}" | tr / _)"
        done < <(find "Sources/$module" -name '*.swift' | sort)
    done
}

# fuzz_compile BINARY HARNESS_MODULE DIR HARNESS.swift: swiftc with libFuzzer and ASan over DIR's
# files and the harness, as one module of the package "trellis" (some declarations have `package`
# access, which swiftc refuses without a package name). A file of DIR that does not compile is left
# out (it needs one left out before, e.g. extends a type from a file importing Logging) and the
# build tried again; an error in the harness itself ends it.
fuzz_compile() {
    local binary=$1 harness=$2 dir main=$4 log=$3.log failing
    dir=$(cd "$3" && pwd)  # swiftc names files in its errors as given: absolute, to match them below
    while ! "$SWIFTC" "${FUZZ_INCLUDES[@]}" -sanitize=fuzzer,address -parse-as-library -O -g -module-name "$harness" -package-name trellis -o "$binary" \
        "$dir"/*.swift "$main" >"$log" 2>&1; do
        failing=$(grep -oE '^[^ ]+\.swift:[0-9]+:[0-9]+: error' "$log" | cut -d: -f1 | sort -u \
            | grep -Fx -f <(printf '%s\n' "$dir"/*.swift) || true)
        [ -n "$failing" ] || { cat "$log" >&2; die "$main does not compile"; }
        echo "left out (does not compile without what was left out before):" ${failing//"$PWD/"/} >&2
        xargs -d '\n' rm <<<"$failing"
    done
}

# fuzz_run BINARY CORPUS CRASH_DIR LOG SECONDS [LIBFUZZER-OPTION…]: libFuzzer for SECONDS, its
# output also in LOG. Swift's backtracer is off: under ASan it faults in its own handler
# (memserver_read) before libFuzzer's "deadly signal" report, which then never comes.
fuzz_run() {
    local binary=$1 corpus=$2 crashes=$3 log=$4 seconds=$5; shift 5
    mkdir -p "$corpus" "$crashes"
    echo "fuzzing for ${seconds}s; corpus $corpus, crashes in $crashes"
    SWIFT_BACKTRACE=enable=no "$binary" "$corpus" -max_total_time="$seconds" -artifact_prefix="$crashes/" \
        -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 "$@" 2>&1 | tee "$log"
}
