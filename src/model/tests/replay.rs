//! Finite runs, as a benchmark runs them: N requests at a rate (or from a trace) to an empty fleet, until the last
//! finishes — at any rate, above capacity too — reported with `vllm bench serve`'s definitions.

use goodput_model::{
    bench_requests, check_requests, replay, replay_traced, KvCache, Scenario, ServiceKind,
    TraceRequest,
};

fn distserve() -> Scenario {
    Scenario::distserve_preset()
}

#[test]
fn a_finite_run_at_twice_capacity_returns_every_figure() {
    let s = distserve();
    let capacity = s.saturation_throughput();
    let rate = 2.0 * capacity;
    let requests = bench_requests(&s, rate, 300, 7).unwrap();
    let r = replay(&s, &requests, Some(rate)).unwrap();
    assert_eq!(r.requests, 300);
    assert_eq!(r.ttft.count, 300);
    let last_arrival = requests.last().unwrap().arrival_s;
    assert!(
        r.duration > last_arrival,
        "{} <= {last_arrival}",
        r.duration
    );
    assert!((r.throughput - 300.0 / r.duration).abs() < 1e-12);
    // Twice the capacity is offered: the queue builds, and the fleet serves about what it can, not the rate.
    assert!(r.peak_waiting > 20, "peak waiting {}", r.peak_waiting);
    assert!(
        r.throughput < 1.2 * capacity,
        "{} vs {capacity}",
        r.throughput
    );
    assert!(
        r.throughput > 0.5 * capacity,
        "{} vs {capacity}",
        r.throughput
    );
    // Queueing shows in TTFT, and its percentiles are ordered.
    for st in [r.ttft, r.tpot, r.itl, r.e2e] {
        assert!(st.mean > 0.0 && st.p50 <= st.p90 && st.p90 <= st.p99 && st.p99 <= st.max);
    }
    assert!(r.ttft.p99 > 10.0 * r.ttft.p50.min(0.5), "{:?}", r.ttft);
    assert!(r.goodput <= r.throughput);
    assert!(r.peak_running <= 64);
}

#[test]
fn rate_runs_are_deterministic_start_at_zero_and_keep_the_rate() {
    let s = distserve();
    let a = bench_requests(&s, 2.0, 5000, 3).unwrap();
    assert_eq!(a, bench_requests(&s, 2.0, 5000, 3).unwrap());
    assert_ne!(a, bench_requests(&s, 2.0, 5000, 4).unwrap());
    assert_eq!(a[0].arrival_s, 0.0);
    let mean_gap = a.last().unwrap().arrival_s / 4999.0;
    assert!((mean_gap - 0.5).abs() < 0.03, "mean gap {mean_gap}");
    assert_eq!(
        replay(&s, &a[..200], Some(2.0)).unwrap(),
        replay(&s, &a[..200], Some(2.0)).unwrap()
    );
}

#[test]
fn a_trace_replays_exactly_its_arrivals_and_lengths() {
    let s = distserve();
    let requests: Vec<TraceRequest> = (0..400u32)
        .map(|i| TraceRequest {
            arrival_s: f64::from(i) * 0.37 + f64::from(i % 7) * 0.01,
            prompt_tokens: 20 + (i * 37) % 900,
            output_tokens: 1 + (i * 53) % 300,
        })
        .collect();
    let (summary, mut traces) = replay_traced(&s, &requests, None).unwrap();
    assert_eq!(traces.len(), requests.len());
    traces.sort_by_key(|t| t.index);
    for (t, r) in traces.iter().zip(&requests) {
        assert_eq!(t.arrival, r.arrival_s);
        assert_eq!(t.prompt_tokens, r.prompt_tokens);
        assert_eq!(t.output_tokens, r.output_tokens);
        assert!(t.first_token > t.arrival && t.finish >= t.first_token);
    }
    let input: u64 = requests.iter().map(|r| u64::from(r.prompt_tokens)).sum();
    assert_eq!(summary.total_input_tokens, input);
    assert_eq!(summary.request_rate, None);
}

#[test]
fn itl_gaps_add_up_to_each_request_s_decode_time_even_through_preemptions() {
    // A small KV cache, so sequences are preempted and recomputed: every gap between tokens, stalls included, is
    // an ITL, and they sum to E2E − TTFT over all requests.
    let mut s = distserve();
    if let ServiceKind::Llm(f) = &mut s.service {
        f.kv_cache = KvCache::Tokens(16_000);
    }
    let rate = 1.5 * s.saturation_throughput();
    let requests = bench_requests(&s, rate, 400, 11).unwrap();
    let (r, traces) = replay_traced(&s, &requests, Some(rate)).unwrap();
    assert!(r.preemptions > 0, "the cache should be too small");
    assert!(r.recomputed_tokens > 0);
    let decode_time: f64 = traces.iter().map(|t| t.finish - t.first_token).sum();
    let tokens_after_first: u64 = traces.iter().map(|t| u64::from(t.output_tokens) - 1).sum();
    assert_eq!(r.itl.count, tokens_after_first);
    let itl_sum = r.itl.mean * r.itl.count as f64;
    assert!(
        (itl_sum - decode_time).abs() < 1e-6 * decode_time,
        "{itl_sum} vs {decode_time}"
    );
}

#[test]
fn a_request_alone_gets_its_prefill_as_ttft_and_one_step_per_token() {
    let s = distserve();
    let ServiceKind::Llm(f) = &s.service else {
        unreachable!()
    };
    let requests = [TraceRequest {
        arrival_s: 0.0,
        prompt_tokens: 500,
        output_tokens: 11,
    }];
    let r = replay(&s, &requests, None).unwrap();
    let it = &f.iteration;
    assert!((r.ttft.mean - it.prefill_time(500)).abs() < 1e-12);
    assert_eq!(r.itl.count, 10);
    assert!((r.tpot.mean - r.itl.mean).abs() < 1e-12);
    assert!((r.e2e.mean - r.ttft.mean - 10.0 * r.itl.mean).abs() < 1e-9);
    assert_eq!(r.duration, r.e2e.mean);
    assert_eq!((r.peak_running, r.peak_waiting), (1, 0));
}

#[test]
fn bad_requests_are_refused_naming_the_request() {
    let s = distserve();
    let ok = TraceRequest {
        arrival_s: 1.0,
        prompt_tokens: 10,
        output_tokens: 10,
    };
    let early = TraceRequest {
        arrival_s: 0.5,
        ..ok
    };
    let e = check_requests(&s, &[ok, early]).unwrap_err();
    assert_eq!(e.field, "requests[1].arrival_s");
    let huge = TraceRequest {
        prompt_tokens: 70_000,
        ..ok
    };
    let e = check_requests(&s, &[ok, huge]).unwrap_err();
    assert_eq!(e.field, "requests[1]");
    assert!(e.problem.contains("KV cache"), "{}", e.problem);
    assert!(check_requests(&s, &[]).is_err());
    assert!(bench_requests(&s, 0.0, 10, 1).is_err());
    assert!(bench_requests(&s, 1.0, 0, 1).is_err());
    assert!(bench_requests(&Scenario::textbook_preset(), 1.0, 10, 1).is_err());
}

#[test]
fn a_rate_run_cuts_a_geometric_tail_at_the_cache_as_a_steady_run_does() {
    let mut s = distserve();
    if let ServiceKind::Llm(f) = &mut s.service {
        f.kv_cache = KvCache::Tokens(2_000);
        f.prompt_tokens = goodput_model::LengthDist::Uniform {
            min: 100,
            max: 1000,
        };
    }
    let requests = bench_requests(&s, 1.0, 2000, 1).unwrap();
    assert!(requests
        .iter()
        .all(|r| r.prompt_tokens + r.output_tokens - 1 <= 2000));
    assert!(requests
        .iter()
        .any(|r| r.prompt_tokens + r.output_tokens - 1 == 2000));
    replay(&s, &requests, Some(1.0)).unwrap();
}
