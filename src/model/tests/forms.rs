//! The scenario forms that give the model the structure vLLM has at the knee: prefix-cache-aware preemption, a
//! step time that is the larger of a memory and a compute term, a front-end overhead, empirical and capped lengths.

use goodput_model::scenario::ComputeTime;
use goodput_model::{
    bench_requests, replay, replay_traced, run, KvCache, LengthDist, LlmFleet, Scenario,
    ServiceKind, TraceRequest,
};

fn fleet_mut(s: &mut Scenario) -> &mut LlmFleet {
    match &mut s.service {
        ServiceKind::Llm(f) => f,
        ServiceKind::Textbook(_) => unreachable!(),
    }
}

/// DistServe's OPT-13B with a cache of `tokens` tokens and prefix caching `on` or off.
fn kv_bound(tokens: u64, on: bool) -> Scenario {
    let mut s = Scenario::distserve_preset();
    let f = fleet_mut(&mut s);
    f.kv_cache = KvCache::Tokens(tokens);
    f.prefix_caching = on;
    s
}

#[test]
fn prefix_cache_aware_preemption_recomputes_less_than_full_recompute() {
    let full = kv_bound(20_000, false);
    let cached = kv_bound(20_000, true);
    let rate = 1.3 * full.saturation_throughput();
    let requests = bench_requests(&full, rate, 600, 5).unwrap();
    let a = replay(&full, &requests, Some(rate)).unwrap();
    let b = replay(&cached, &requests, Some(rate)).unwrap();
    assert!(a.preemptions > 50, "the cache should be tight: {a:?}");
    assert!(b.preemptions > 0);
    assert!(
        (b.recomputed_tokens as f64) < 0.8 * a.recomputed_tokens as f64,
        "cached {} vs full {}",
        b.recomputed_tokens,
        a.recomputed_tokens
    );
    // Less work done twice: the same requests finish sooner.
    assert!(b.duration <= a.duration, "{} vs {}", b.duration, a.duration);
    // Without preemptions the switch changes nothing at all.
    let roomy = |on| {
        let mut s = Scenario::distserve_preset();
        fleet_mut(&mut s).prefix_caching = on;
        s.customers = 3000;
        s.warm_up = 300;
        s.arrivals = goodput_model::Arrivals::poisson(0.6);
        run(&s, 3).unwrap()
    };
    assert_eq!(roomy(true), roomy(false));
}

#[test]
fn a_steady_state_kv_bound_run_with_prefix_caching_still_conserves_and_is_stable() {
    let mut s = kv_bound(24_000, true);
    s.arrivals = goodput_model::Arrivals::poisson(0.8);
    s.customers = 5000;
    s.warm_up = 500;
    let r = run(&s, 2).unwrap();
    let kv = r.kv_cache.unwrap();
    assert!(kv.preemptions > 0, "{kv:?}");
    assert!(kv.peak_usage <= 1.0);
    let st = r.steady.unwrap();
    assert!(st.little.relative_error < 0.05, "{:?}", st.little);
}

#[test]
fn the_step_time_is_the_larger_of_memory_and_compute_and_linear_stays_as_it_was() {
    let mut s = Scenario::distserve_preset();
    let before = run(&s, 4).unwrap();
    let f = fleet_mut(&mut s);
    // A compute term that never exceeds the memory time changes nothing.
    f.iteration.compute = Some(ComputeTime {
        fixed: 0.0,
        per_token: 1e-12,
    });
    assert_eq!(run(&s, 4).unwrap().steady, before.steady);
    let f = fleet_mut(&mut s);
    f.iteration.compute = Some(ComputeTime {
        fixed: 0.001,
        per_token: 4e-4,
    });
    let it = &f.iteration;
    // 8 decodes: memory-bound; 500 prefill tokens: compute-bound.
    let memory = it.fixed + 8.0 * it.per_decode_seq + 1000.0 * it.per_context_token;
    assert_eq!(it.duration(0, 8, 1000), memory.max(0.001 + 32e-4));
    let linear = it.fixed + 500.0 * it.per_prefill_token;
    assert!((it.duration(500, 0, 0) - linear.max(0.001 + 0.2)).abs() < 1e-15);
    assert!(it.duration(500, 0, 0) > linear);
    // The analytic capacity sees the slower steps.
    assert!(s.saturation_throughput() < Scenario::distserve_preset().saturation_throughput());
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"compute\":{\"fixed\":0.001,\"per_token\":0.0004}"));
    assert!(!serde_json::to_string(&Scenario::distserve_preset())
        .unwrap()
        .contains("compute"));
}

#[test]
fn the_front_end_overhead_adds_to_ttft_and_e2e_but_not_tpot() {
    let plain = Scenario::distserve_preset();
    let mut slow = plain.clone();
    fleet_mut(&mut slow).frontend_overhead = 0.004;
    let requests = bench_requests(&plain, 2.0, 300, 9).unwrap();
    let (a, ta) = replay_traced(&plain, &requests, None).unwrap();
    let (b, tb) = replay_traced(&slow, &requests, None).unwrap();
    assert!((b.ttft.mean - a.ttft.mean - 0.004).abs() < 1e-9);
    assert!((b.e2e.p50 - a.e2e.p50 - 0.004).abs() < 1e-9);
    assert!((b.tpot.mean - a.tpot.mean).abs() < 1e-9);
    assert!((b.duration - a.duration - 0.004).abs() < 1e-9);
    for (x, y) in ta.iter().zip(&tb) {
        assert!((x.arrival - y.arrival).abs() < 1e-9);
    }
    // In steady state too, and in the unloaded response time.
    assert!((slow.unloaded_response_time() - plain.unloaded_response_time() - 0.004).abs() < 1e-12);
    let (p, q) = (run(&plain, 1).unwrap(), run(&slow, 1).unwrap());
    let (p, q) = (p.steady.unwrap(), q.steady.unwrap());
    assert!((q.ttft.unwrap().mean - p.ttft.unwrap().mean - 0.004).abs() < 1e-6);
}

#[test]
fn capped_geometric_and_empirical_lengths_draw_what_they_promise() {
    let capped = LengthDist::Geometric {
        mean: 200.0,
        max: Some(300),
    };
    assert_eq!(capped.max(), Some(300));
    let mut s = Scenario::distserve_preset();
    fleet_mut(&mut s).output_tokens = capped.clone();
    let requests = bench_requests(&s, 1.0, 100_000, 1).unwrap();
    let outputs: Vec<f64> = requests
        .iter()
        .map(|r| f64::from(r.output_tokens))
        .collect();
    assert!(outputs.iter().all(|&o| (1.0..=300.0).contains(&o)));
    let n = outputs.len() as f64;
    let mean = outputs.iter().sum::<f64>() / n;
    let second = outputs.iter().map(|o| o * o).sum::<f64>() / n;
    assert!(
        (mean / capped.mean() - 1.0).abs() < 0.01,
        "{mean} vs {}",
        capped.mean()
    );
    assert!((second / capped.second_moment() - 1.0).abs() < 0.02);
    assert!(capped.mean() < 200.0 && capped.mean() > 150.0);

    let empirical = LengthDist::Empirical {
        tokens: vec![10, 20, 20, 950],
    };
    assert_eq!(empirical.mean(), 250.0);
    assert_eq!(empirical.max(), Some(950));
    fleet_mut(&mut s).prompt_tokens = empirical;
    let requests: Vec<TraceRequest> = bench_requests(&s, 1.0, 4000, 2).unwrap();
    let count = |t| requests.iter().filter(|r| r.prompt_tokens == t).count();
    assert_eq!(count(10) + count(20) + count(950), 4000);
    assert!((count(20) as f64 / 4000.0 - 0.5).abs() < 0.05);

    // Validation names the field.
    fleet_mut(&mut s).prompt_tokens = LengthDist::Empirical { tokens: vec![] };
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "service.llm.prompt_tokens.empirical.tokens");
    fleet_mut(&mut s).prompt_tokens = LengthDist::Empirical { tokens: vec![5, 0] };
    assert_eq!(
        s.validate().unwrap_err().field,
        "service.llm.prompt_tokens.empirical.tokens[1]"
    );
    fleet_mut(&mut s).prompt_tokens = LengthDist::Fixed { tokens: 100 };
    fleet_mut(&mut s).output_tokens = LengthDist::Geometric {
        mean: 50.0,
        max: Some(0),
    };
    assert_eq!(
        s.validate().unwrap_err().field,
        "service.llm.output_tokens.geometric.max"
    );
    // A scenario file spells them as the README says.
    let text = r#"{"geometric": {"mean": 120.0, "max": 1024}}"#;
    let d: LengthDist = serde_json::from_str(text).unwrap();
    assert_eq!(
        d,
        LengthDist::Geometric {
            mean: 120.0,
            max: Some(1024)
        }
    );
    let d: LengthDist = serde_json::from_str(r#"{"empirical": {"tokens": [3, 4]}}"#).unwrap();
    assert_eq!(d.mean(), 3.5);
}

#[test]
fn the_measured_capacity_includes_what_the_kv_cache_allows() {
    use goodput_model::measured_saturation_throughput;
    // Not KV-bound: the measurement and the analytic figure agree.
    let course = Scenario::course_preset();
    let (analytic, measured) = (
        course.saturation_throughput(),
        measured_saturation_throughput(&course, 1).unwrap(),
    );
    println!("course: analytic {analytic}, measured {measured}");
    assert!((measured / analytic - 1.0).abs() < 0.05);
    // KV-bound with full recompute: admission waits for blocks and preemptions recompute, so the fleet serves less
    // than a full batch of mean-sized requests would; finding the prefix cached wins some of it back.
    let cached = kv_bound(16_000, true);
    let with_cache = measured_saturation_throughput(&cached, 1).unwrap();
    let full = kv_bound(16_000, false);
    let without = measured_saturation_throughput(&full, 1).unwrap();
    println!(
        "kv 16000: analytic {}, measured {with_cache} (cached), {without} (full recompute)",
        full.saturation_throughput()
    );
    assert!(without < 0.97 * full.saturation_throughput());
    assert!(without < with_cache);
    // Deterministic.
    assert_eq!(
        with_cache,
        measured_saturation_throughput(&cached, 1).unwrap()
    );
}
