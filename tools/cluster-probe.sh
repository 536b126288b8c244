#!/usr/bin/env bash
# cluster-probe.sh: the four signals of a vLLM server, read off its /metrics page.
# curl fetches the page; `goodput-sim metrics` parses it with the same parser the course page uses.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: tools/cluster-probe.sh [URL | HOST:PORT] [--every N] [--slo-ttft-ms MS] [--slo-tpot-ms MS]

Prints, per model and label set on a vLLM server's /metrics page, the four signals of the lesson:
TTFT and TPOT p50/p95/p99 (estimated from the histogram buckets), requests running, requests waiting,
and the knee verdict against the SLOs.

  URL | HOST:PORT     the server (default http://localhost:8000/metrics). A bare host:port gets
                      http:// in front and /metrics after it.
  --every N           probe again every N seconds until interrupted (Ctrl-C). A failure after the
                      first successful probe is reported and the probe carries on (servers restart).
  --slo-ttft-ms MS    SLO on p99 TTFT (default 500)
  --slo-tpot-ms MS    SLO on p95 TPOT (default 40)
  -h, --help          this help

Exits non-zero with a one-line reason when the server cannot be reached, answers with an HTTP error,
or serves a page with no vLLM metrics (or one that does not parse).

The parser is goodput-sim's: $GOODPUT_SIM if set, else goodput-sim on PATH, else the one built in
this repository's target directory (built with cargo if missing).
EOF
}

fail() {
  echo "cluster-probe: $*" >&2
  exit 1
}

url="http://localhost:8000/metrics"
every=""
slo_args=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --every)
      [[ $# -ge 2 && "$2" =~ ^[0-9]+([.][0-9]+)?$ && ! "$2" =~ ^0+([.]0+)?$ ]] ||
        fail "--every needs a positive number of seconds"
      every="$2"; shift 2 ;;
    --slo-ttft-ms | --slo-tpot-ms)
      [[ $# -ge 2 ]] || fail "$1 needs a number of milliseconds"
      slo_args+=("$1" "$2"); shift 2 ;;
    -*) fail "unknown option $1 (see --help)" ;;
    *) url="$1"; shift ;;
  esac
done

# host:port → http://host:port/metrics; a URL without a path gets /metrics.
[[ "$url" == *://* ]] || url="http://$url"
rest="${url#*://}"
[[ "$rest" == */* ]] || url="$url/metrics"

command -v curl >/dev/null || fail "curl is not installed"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sim="${GOODPUT_SIM:-}"
if [[ -z "$sim" ]]; then
  if command -v goodput-sim >/dev/null; then
    sim="$(command -v goodput-sim)"
  else
    target="${CARGO_TARGET_DIR:-$repo/target}"
    for candidate in "$target/release/goodput-sim" "$target/debug/goodput-sim"; do
      if [[ -x "$candidate" ]]; then sim="$candidate"; break; fi
    done
    if [[ -z "$sim" ]]; then
      echo "cluster-probe: building goodput-sim (once)..." >&2
      (cd "$repo" && cargo build --quiet --release --bin goodput-sim) || fail "could not build goodput-sim"
      sim="$target/release/goodput-sim"
    fi
  fi
fi
[[ -x "$sim" ]] || fail "goodput-sim not found at $sim"

# One probe: prints the report, or a one-line reason on stderr and returns non-zero.
probe() {
  local page status
  page="$(mktemp)"
  # curl's own message names the cause (refused, timed out, unknown host); keep its one line.
  if ! status="$(curl --silent --show-error --max-time 10 --output "$page" --write-out '%{http_code}' "$url" 2>&1)"; then
    rm -f "$page"
    echo "cluster-probe: cannot reach $url: ${status##*curl: }" | head -n 1 >&2
    return 1
  fi
  if [[ "$status" != 2* ]]; then
    rm -f "$page"
    echo "cluster-probe: $url answered HTTP $status" >&2
    return 1
  fi
  local report reason
  if ! report="$("$sim" metrics "${slo_args[@]}" - <"$page" 2>&1)"; then
    rm -f "$page"
    # goodput-sim names its input "standard input"; name the URL instead.
    reason="${report#goodput-sim: }"
    reason="${reason#standard input}"
    case "$reason" in
      ": "*) reason="${reason#: }"; echo "cluster-probe: $url: $reason" ;;
      " "*) echo "cluster-probe: $url$reason" ;;
      *) echo "cluster-probe: $reason" ;;
    esac | head -n 1 >&2
    return 1
  fi
  rm -f "$page"
  printf '%s\n' "$report"
}

if [[ -z "$every" ]]; then
  echo "# $url"
  probe || exit 1
  exit 0
fi

first=1
while :; do
  echo "# $(date -u +%H:%M:%SZ) $url"
  if ! probe && ((first)); then
    exit 1
  fi
  first=0
  sleep "$every"
done
