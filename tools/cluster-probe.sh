#!/usr/bin/env bash
# cluster-probe.sh: the signals of a vLLM server, read off its /metrics page.
# curl fetches the page; `goodput-sim metrics` parses it with the same parser the course page uses.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: tools/cluster-probe.sh [URL | HOST:PORT] [--every N [--count K]] [--slo-ttft-ms MS] [--slo-tpot-ms MS]

Prints, per model and engine on a vLLM server's /metrics page, the signals of the lesson: TTFT, TPOT
(per request) and ITL (per engine step) p50/p95/p99 estimated from the histogram buckets, requests
running and waiting, KV-cache usage, preemptions, requests turned away (vllm:admission_rejections_total
by reason, and http_requests_total's 5xx answers) with their share of arrivals, and the knee verdict
against the SLOs: a server that turns requests away is past its knee, however short its queue. Current
(vLLM 0.13) and older metric names are both read.

One probe reads one scrape, whose histograms count since the server started: the history. With
--every, each probe after the first reports the window since the previous one (the differences of
the bucket counts, as Prometheus's rate() takes them): the present. A restart in between is reported
as such.

  URL | HOST:PORT     the server (default http://localhost:8000/metrics). A bare host:port gets
                      http:// in front and /metrics after it.
  --every N           probe again every N seconds until interrupted (Ctrl-C). A failure after the
                      first successful probe is reported and the probe carries on (servers restart).
  --count K           with --every: stop after K probes
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
count=""
slo_args=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --every)
      [[ $# -ge 2 && "$2" =~ ^[0-9]+([.][0-9]+)?$ && ! "$2" =~ ^0+([.]0+)?$ ]] ||
        fail "--every needs a positive number of seconds"
      every="$2"; shift 2 ;;
    --count)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || fail "--count needs a positive whole number of probes"
      count="$2"; shift 2 ;;
    --slo-ttft-ms | --slo-tpot-ms)
      [[ $# -ge 2 ]] || fail "$1 needs a number of milliseconds"
      slo_args+=("$1" "$2"); shift 2 ;;
    -*) fail "unknown option $1 (see --help)" ;;
    *) url="$1"; shift ;;
  esac
done

[[ -z "$count" || -n "$every" ]] || fail "--count only makes sense with --every"

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

# The previous successful scrape (for the window) and when it arrived, in seconds since the epoch.
previous=""
previous_at=""
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT

# One probe: prints the report (of the window since the previous probe, when there is one), or a one-line
# reason on stderr and returns non-zero.
probe() {
  local page status now
  page="$workdir/page.prom"
  # curl's own message names the cause (refused, timed out, unknown host); keep its one line.
  if ! status="$(curl --silent --show-error --max-time 10 --output "$page" --write-out '%{http_code}' "$url" 2>&1)"; then
    echo "cluster-probe: cannot reach $url: ${status##*curl: }" | head -n 1 >&2
    return 1
  fi
  now="$(date +%s.%N)"
  if [[ "$status" != 2* ]]; then
    echo "cluster-probe: $url answered HTTP $status" >&2
    return 1
  fi
  local report reason span
  local args=(metrics "${slo_args[@]}")
  if [[ -n "$previous" ]]; then
    args+=(--seconds "$(awk -v a="$previous_at" -v b="$now" 'BEGIN { s = b - a; print (s > 0 ? s : 0.001) }')" "$previous")
    span="the window since the previous probe"
  else
    span="since the server started"
  fi
  if ! report="$("$sim" "${args[@]}" - <"$page" 2>&1)"; then
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
  mv "$page" "$workdir/previous.prom"
  previous="$workdir/previous.prom"
  previous_at="$now"
  echo "# $(date -u +%H:%M:%SZ) $url: $span"
  # The report's own first line names the temporary files of a window; the header above says it instead.
  printf '%s\n' "$report" | sed '1{/^Window from /d}'
}

if [[ -z "$every" ]]; then
  probe || exit 1
  exit 0
fi

probes=0
while :; do
  if ! probe && ((probes == 0)); then
    exit 1
  fi
  probes=$((probes + 1))
  if [[ -n "$count" ]] && ((probes >= count)); then
    exit 0
  fi
  sleep "$every"
done
