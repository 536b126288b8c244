//! The words learners use for the lesson's ideas, and the lesson's own words for them: "time to first byte" is
//! TTFT, "queue depth" is `num_requests_waiting`, "HPA" is the autoscaler. A question is searched with the lesson's
//! words added, so it meets the passages that say the same thing differently.

use super::seen::SEEN;
use super::shapes::CHOOSING;
use super::typed::spelled_out;
pub use super::typed::{normalise, normalise_typed};

/// (What learners write, what the lesson writes.) Phrases are matched as whole words, case and punctuation
/// aside ("--max-num-seqs" is "max num seqs").
const SAME_AS: &[(&[&str], &str)] = &[
    (
        &[
            "inter token latency",
            "intertoken latency",
            "itl",
            "time between tokens",
            "token gap",
            "gap between tokens",
            "per token latency",
            "streaming speed",
            "stream speed",
            "tokens per second per user",
        ],
        "tpot itl decode token gap",
    ),
    (
        &[
            "time to first byte",
            "ttfb",
            "first byte",
            "first token latency",
            "first word",
            "before anything appears",
            "initial latency",
        ],
        "ttft first token prefill",
    ),
    (
        &[
            "prompt processing",
            "reading the prompt",
            "processes the prompt",
            "long prompt",
            "huge prompt",
            "big prompt",
            "giant prompt",
            "massive prompt",
            "large prompt",
        ],
        "prefill prompt",
    ),
    (
        &[
            "generation",
            "generating tokens",
            "token generation",
            "streams",
            "stream",
        ],
        "decode",
    ),
    (
        &[
            "queue depth",
            "queue length",
            "queue size",
            "queued requests",
            "pending requests",
            "backlog",
            "requests waiting",
            "waiting requests",
        ],
        "num_requests_waiting waiting queue",
    ),
    (
        &[
            "concurrency cap",
            "concurrency limit",
            "max concurrency",
            "maximum concurrency",
            "max batch size",
            "parallel requests",
            "caps concurrency",
            "cap concurrency",
            "max num seqs",
        ],
        "max-num-seqs concurrency cap",
    ),
    // How many run together, in learners' words: what the cap bounds, "at once".
    (
        &[
            "at the same time",
            "simultaneously",
            "concurrently",
            "in parallel",
            "at one time",
        ],
        "at once concurrency cap",
    ),
    (
        &[
            "kv cache full",
            "kv cache is full",
            "cache is full",
            "kv cache fills",
            "out of kv",
            "kv memory",
            "out of memory",
            "oom",
            "kv cache usage",
        ],
        "kv_cache_usage_perc kv cache preemptions full",
    ),
    (
        &[
            "preempt",
            "preempted",
            "preemption",
            "preemptions",
            "evicted",
            "eviction",
            "evict",
            "kicked out",
            "kick out",
            "kicks out",
            "thrown out",
            "bumped",
        ],
        "num_preemptions_total preemptions evicted recompute",
    ),
    (
        &[
            "hpa",
            "keda",
            "autoscaler",
            "autoscaling",
            "auto scale",
            "scale out",
            "scale up",
            "add a replica",
            "add replicas",
            "add another replica",
            "more replicas",
            "horizontal pod autoscaler",
            "scale on",
            "scaling metric",
            "scaling signal",
            "scaling trigger",
        ],
        "autoscale num_requests_waiting signal",
    ),
    (
        &[
            "503",
            "503s",
            "service unavailable",
            "rejected",
            "rejections",
            "reject",
            "load shedding",
            "shed",
            "shedding",
            "turned away",
            "turn away",
            "refuse",
            "refused",
            "queue cap",
            "cap the queue",
        ],
        "503 shed max-num-queued-reqs admission_rejections_total queue cap",
    ),
    (
        &[
            "headroom",
            "safety margin",
            "spare capacity",
            "buffer",
            "how far below",
        ],
        "headroom 80% knee aim",
    ),
    (
        &[
            "utilisation",
            "utilization",
            "gpu util",
            "how busy",
            "busy",
            "how loaded",
            "full load",
            "almost full",
            "nearly full",
            "load level",
            "at capacity",
            "full capacity",
            "max capacity",
        ],
        "load utilisation capacity",
    ),
    // Running a replica flat out, in slang, is a load near full, as "99% busy" is (see [`NEAR_FULL`]): the knee's
    // question, not the GPU utilisation gauge's.
    (
        &[
            "flat out",
            "full tilt",
            "full throttle",
            "pegged",
            "maxed",
            "maxed out",
            "max out",
            "maxing out",
            "max it out",
            "max them out",
            "redline",
            "redlined",
            "redlining",
            "slammed",
            "100% busy",
        ],
        NEAR_FULL,
    ),
    (
        &[
            "tail latency",
            "tail",
            "worst case",
            "slowest requests",
            "slow requests",
            "outliers",
        ],
        "p99 tail percentiles",
    ),
    (&["median"], "p50 percentiles"),
    (
        &[
            "end to end latency",
            "end to end",
            "e2e",
            "e2e latency",
            "whole request",
            "total latency",
            "total time",
            "total response time",
            "overall latency",
            "overall response time",
            "full response time",
            "round trip time",
            "round trip",
        ],
        "end to end latency arrival to last token",
    ),
    (
        &[
            "freshly started",
            "new pod",
            "start serving",
            "take traffic",
            "load its weights",
            "start up time",
            "startup time",
            "spin up",
            "spins up",
            "spun up",
            "spinning up",
            "come online",
            "comes online",
            "coming online",
            "fresh replica",
            "fresh pod",
            "boot",
            "boot up",
            "another replica",
            "extra replica",
            "new replica",
            "new replicas",
            "just added",
            "newly added",
            "warmup",
            "warm up",
            "warming up",
            "cold start",
            "startup",
            "start up",
            "freshly launched",
            "launched",
            "ready to serve",
        ],
        "new replica serves nothing loaded weights start",
    ),
    (
        &[
            "stabilization window",
            "stabilisation window",
            "scale down delay",
            "scale down window",
            "cooldown",
            "cool down",
            "remove replicas",
            "removes replicas",
            "removing replicas",
            "remove a replica",
            "removes a replica",
            "kill replicas",
            "kills replicas",
            "drop replicas",
            "drops replicas",
            "downscale",
            "downscales",
            "downscaling",
            "scale in",
            "scales in",
            "shrink the fleet",
            "shrinks the fleet",
        ],
        "scales down only after the lower count has held 300 s",
    ),
    (&["duration", "how much time"], "length lasts long"),
    (&["pod", "pods"], "replica"),
    (
        &[
            "crank up", "crank", "bump up", "jack up", "turn up", "way up",
        ],
        "raise higher",
    ),
    (
        &[
            "efficient",
            "efficiency",
            "wasteful",
            "waste",
            "wasted",
            "wasting",
            "idle",
            "money",
            "cost effective",
        ],
        "utilisation capacity paid",
    ),
    (
        &[
            "stuck waiting",
            "stuck in the queue",
            "waiting for a slot",
            "in the queue",
            "in queue",
            "queued up",
            "are queued",
            "waiting in line",
            "in line",
        ],
        "num_requests_waiting waiting queue",
    ),
    (
        &[
            "average latency",
            "mean latency",
            "average response time",
            "avg response time",
            "mean response time",
            "avg latency",
        ],
        "mean percentiles tail p99",
    ),
    (&["average", "averages", "avg"], "mean percentiles"),
    (
        &[
            "response time",
            "response times",
            "reply time",
            "answer time",
        ],
        "latency",
    ),
    (
        &[
            "bad signal",
            "poor signal",
            "misleading",
            "lies",
            "lie to me",
            "can t trust",
            "cannot trust",
            "fooled",
        ],
        "poor signal goodput throughput holds",
    ),
    (
        &[
            "passes the knee",
            "pass the knee",
            "beyond the knee",
            "go past the knee",
            "goes past the knee",
            "push past the knee",
            "over the knee",
        ],
        "past the knee",
    ),
    (
        &["rps", "requests per second", "req s", "request rate"],
        "qps requests/s",
    ),
    (
        &["tokens per second", "tokens per s", "tok s", "tokens s"],
        "throughput tokens/s",
    ),
    (
        &[
            "service level objective",
            "sla",
            "latency target",
            "latency targets",
            "deadline",
            "objective",
        ],
        "slo objective",
    ),
    (
        &[
            "useful throughput",
            "successful requests",
            "on time",
            "in time",
            "late answer",
            "late answers",
            "users complain",
            "complain",
            "complains",
            "complaining",
            "complaints",
            "users wait",
            "users are waiting",
            "count as a success",
            "still count",
            "still counts",
            "does it count",
            "count as success",
        ],
        "goodput slo late",
    ),
    (
        &[
            "saturation point",
            "saturate",
            "saturates",
            "saturation",
            "hockey stick",
            "elbow",
            "inflection",
            "cliff",
            "breaking point",
            "blow up",
            "blows up",
            "explodes",
            "load curve",
            "stop rising",
            "stops rising",
        ],
        "knee saturates latency climbs",
    ),
    (
        &[
            "load test",
            "load tests",
            "benchmark",
            "locust",
            "k6",
            "wrk",
            "virtual users",
            "fixed number of users",
            "fixed concurrency",
            "capacity test",
        ],
        "closed loop load test concurrency",
    ),
    (
        &["poisson", "arrival rate", "open loop"],
        "open loop arrivals",
    ),
    (
        &[
            "under report",
            "under reports",
            "underreport",
            "undercount",
            "understate",
            "too optimistic",
            "look better",
            "looks better",
            "hide the tail",
            "hides the tail",
            "hiding the tail",
        ],
        "optimistic coordinated omission undercount tail",
    ),
    (
        &[
            "chunked prefill",
            "chunking",
            "split the prompt",
            "split a prompt",
        ],
        "chunked prefill chunk",
    ),
    (
        &[
            "engine step",
            "engine steps",
            "scheduler step",
            "scheduler steps",
            "batch step",
        ],
        "iteration",
    ),
    (
        &["token budget", "max num batched tokens", "batched tokens"],
        "budget max-num-batched-tokens iteration",
    ),
    (
        &[
            "continuous batching",
            "in flight batching",
            "inflight batching",
            "iteration level scheduling",
            "scheduler",
        ],
        "continuous batching iteration slot",
    ),
    (&["promql"], "prometheus histogram_quantile rate"),
    (
        &["grafana", "dashboard", "metrics endpoint"],
        "metrics prometheus",
    ),
    (
        &[
            "replica count",
            "how many gpus",
            "how many replicas",
            "fleet size",
            "capacity planning",
            "size a fleet",
            "size the fleet",
        ],
        "little's law replicas fleet",
    ),
    (
        &[
            "calibrate",
            "my own server",
            "own server",
            "my vllm",
            "my server",
            "benchmark results",
            "my numbers",
            "own numbers",
        ],
        "calibrate your server lab",
    ),
    (&["queue and overload", "overload"], "overload queue cap"),
    (
        &[
            "renamed",
            "rename",
            "changed name",
            "changed names",
            "name changed",
            "names changed",
            "new names",
            "old names",
            "old name",
        ],
        "old names renamed spell differently",
    ),
    (
        &[
            "went blank",
            "go blank",
            "went empty",
            "go empty",
            "no data",
            "panels",
        ],
        "dashboards go blank",
    ),
    (&["sluggish", "laggy", "lag", "lags"], "slow latency"),
    (
        &[
            "ages to start",
            "forever to start",
            "slow to start",
            "long to start",
            "before it starts",
            "before it starts typing",
        ],
        "ttft first token prefill",
    ),
    (
        &["type out", "types out", "typing", "text flies", "pours out"],
        "tpot decode stream",
    ),
    (
        &[
            "more traffic",
            "more users",
            "more requests",
            "adding traffic",
            "pushing more",
            "push more",
        ],
        "load raise",
    ),
    (
        &[
            "more output",
            "raise output",
            "raises output",
            "output rate",
            "total output",
            "adding throughput",
        ],
        "throughput",
    ),
    (
        &[
            "alert on", "alert", "alerts", "alerting", "page me", "pager",
        ],
        "alarms watch",
    ),
    (
        &["how fast", "speed of the stream", "words stream"],
        "tpot rhythm stream gap",
    ),
    (
        &[
            "slow down",
            "slows down",
            "slow everyone",
            "hold up",
            "holds up",
            "blocks",
            "freeze",
            "freezes",
            "froze",
            "frozen",
            "stutter",
            "stutters",
            "stuttering",
            "pause",
            "pauses",
            "paused",
            "hiccup",
            "hiccups",
        ],
        "stall stalls",
    ),
];

/// What `text` says in the lesson's words: (the lesson's words for its phrases, one string; `text` normalised with
/// those phrases taken out). A question is ranked with the first added, and judged answerable on both, so a word
/// the vocabulary understood ("HPA") does not count as a word the lesson lacks. Chat spellings are written out
/// first ([`super::typed`]), and what they stand for joins the lesson's words.
pub fn translate(text: &str) -> (String, String) {
    let (mut said, written_out) = spelled_out(&normalise(text));
    let mut lesson = written_out;
    for (phrases, words) in SAME_AS.iter().chain(SEEN) {
        for phrase in *phrases {
            let phrase = normalise(phrase);
            if said.contains(&phrase) {
                said = said.replace(&phrase, " ");
                if !lesson.contains(words) {
                    lesson.push(*words);
                }
            }
        }
    }
    // Which one is wanted, not what it is about: "the best signal to autoscale on" asks about autoscaling.
    for word in CHOOSING {
        said = said.replace(&normalise(word), " ");
    }
    // A load of 90% or more is near full, however it is written ("95% load", "99% busy").
    if said.split_whitespace().any(|word| {
        word.strip_suffix('%')
            .and_then(|number| number.parse::<f64>().ok())
            .is_some_and(|percent| percent >= NEAR_FULL_PERCENT)
    }) && !lesson.contains(&NEAR_FULL)
    {
        lesson.push(NEAR_FULL);
    }
    (lesson.join(" "), said)
}

/// From which load a percentage in a question means the replica is nearly full.
const NEAR_FULL_PERCENT: f64 = 90.0;
/// The lesson's words for a load near full.
const NEAR_FULL: &str = "full load capacity knee";

/// Every phrase learners use that the vocabulary reads, for the spelling ([`super::spelling`]).
pub(super) fn learner_phrases() -> impl Iterator<Item = &'static str> {
    SAME_AS
        .iter()
        .chain(SEEN)
        .flat_map(|(phrases, _)| phrases.iter())
        .chain(CHOOSING)
        .copied()
}
