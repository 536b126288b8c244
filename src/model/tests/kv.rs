//! The KV cache and bursty arrivals: vLLM's admission and preemption rules, and gamma gaps between arrivals.

use goodput_model::{
    run, run_traced, Arrivals, IterationModel, KvCache, LengthDist, LlmFleet, RunSummary, Scenario,
    ServiceKind, Slo, KV_BLOCK_TOKENS,
};

/// One replica serving fixed or geometric lengths with a simple iteration model, at offered load `load`.
fn fleet_scenario(
    prompt: LengthDist,
    output: LengthDist,
    kv_cache: KvCache,
    chunked_prefill: bool,
    load: f64,
) -> Scenario {
    Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: 1,
            max_num_seqs: 64,
            max_num_batched_tokens: 2048,
            chunked_prefill,
            prefill_first: false,
            iteration: IterationModel {
                fixed: 5e-3,
                per_prefill_token: 2e-5,
                per_decode_seq: 5e-5,
                per_context_token: 1e-8,
                compute: None,
            },
            prompt_tokens: prompt,
            output_tokens: output,
            kv_cache,
            prefix_caching: true,
            frontend_overhead: 0.0,
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens: 0,
        }),
        arrivals: Arrivals::poisson(load),
        slo: Slo {
            ttft: 1.0,
            tpot: 0.1,
        },
        customers: 20_000,
        warm_up: 2_000,
    }
}

fn fleet(s: &Scenario) -> &LlmFleet {
    match &s.service {
        ServiceKind::Llm(f) => f,
        ServiceKind::Textbook(_) => unreachable!(),
    }
}

/// The summary without its KV figures, to compare runs with and without a budget.
fn without_kv(mut s: RunSummary) -> RunSummary {
    s.kv_cache = None;
    for o in &mut s.occupancy {
        o.kv_usage = None;
        o.preemptions = None;
    }
    s
}

#[test]
fn a_budget_that_fits_k_whole_sequences_never_runs_more_than_k() {
    // A 100-token prompt and 12 output tokens hold at most 111 tokens: 7 blocks, the same 7 the prompt needs at
    // admission, so a sequence never grows out of its blocks and k of them fill 7k blocks exactly.
    let blocks_per_sequence = 111u64.div_ceil(KV_BLOCK_TOKENS);
    for k in [1u64, 3, 5] {
        for chunked in [true, false] {
            let s = fleet_scenario(
                LengthDist::Fixed { tokens: 100 },
                LengthDist::Fixed { tokens: 12 },
                KvCache::Tokens(k * blocks_per_sequence * KV_BLOCK_TOKENS),
                chunked,
                0.98,
            );
            assert!(fleet(&s).saturation_batch() <= k as f64);
            let summary = run(&s, 5).unwrap();
            let st = summary.steady.as_ref().expect("stable below saturation");
            assert_eq!(st.peak_batch, Some(k as u32), "k = {k}, chunked {chunked}");
            assert!(summary.occupancy.iter().all(|o| u64::from(o.running) <= k));
            let kv = summary.kv_cache.unwrap();
            assert_eq!(kv.preemptions, 0, "whole sequences fit: nothing to preempt");
            assert_eq!(kv.peak_usage, 1.0, "k = {k}: the budget binds");
        }
    }
}

#[test]
fn no_preemption_while_the_budget_does_not_bind() {
    // 64 sequences of at most 300 + 40 − 1 tokens fit a 64 × 22-block cache: the run is the unlimited run.
    let (prompt, output) = (
        LengthDist::Uniform { min: 50, max: 300 },
        LengthDist::Uniform { min: 1, max: 40 },
    );
    let roomy = KvCache::Tokens(64 * 339u64.div_ceil(KV_BLOCK_TOKENS) * KV_BLOCK_TOKENS);
    for chunked in [true, false] {
        let limited = fleet_scenario(prompt.clone(), output.clone(), roomy.clone(), chunked, 0.97);
        let unlimited = fleet_scenario(
            prompt.clone(),
            output.clone(),
            KvCache::Unlimited,
            chunked,
            0.97,
        );
        let a = run(&limited, 3).unwrap();
        let kv = a.kv_cache.unwrap();
        assert_eq!(kv.preemptions, 0);
        assert!(kv.peak_usage < 1.0 && kv.mean_usage > 0.0, "{kv:?}");
        assert_eq!(without_kv(a), run(&unlimited, 3).unwrap());
    }
    // The course box: ≈ 1.09 M tokens of cache against ≈ 140 000 for a full batch.
    let course = Scenario::course_preset().with_offered_load(0.99);
    let summary = run(&course, 11).unwrap();
    let kv = summary.kv_cache.unwrap();
    assert_eq!(kv.preemptions, 0);
    assert!(kv.peak_usage < 0.2, "{kv:?}");
    let mut unlimited = course.clone();
    if let ServiceKind::Llm(f) = &mut unlimited.service {
        f.kv_cache = KvCache::Unlimited;
    }
    assert_eq!(without_kv(summary), run(&unlimited, 11).unwrap());
}

#[test]
fn preemptions_appear_when_the_budget_binds_and_every_request_still_completes_once() {
    // Geometric outputs grow sequences past what a 12-sequence cache holds, with room for 64 in the batch.
    for (chunked, replicas) in [(true, 1), (false, 1), (true, 2)] {
        let mut s = fleet_scenario(
            LengthDist::Fixed { tokens: 200 },
            LengthDist::Geometric {
                mean: 100.0,
                max: None,
            },
            KvCache::Tokens(12 * 300),
            chunked,
            0.95,
        );
        if let ServiceKind::Llm(f) = &mut s.service {
            f.replicas = replicas;
        }
        s.customers = 10_000;
        s.warm_up = 1_000;
        let (summary, traces) = run_traced(&s, 9, usize::MAX).unwrap();
        let kv = summary.kv_cache.unwrap();
        assert!(
            kv.preemptions > 100,
            "chunked {chunked}, {replicas} replicas: {kv:?}"
        );
        assert!(kv.preemption_rate > 0.0 && kv.peak_usage <= 1.0);
        assert!(summary.occupancy.iter().any(|o| o.preemptions > Some(0)));
        // Every measured request exactly once, each with a consistent life.
        let mut indices: Vec<u64> = traces.iter().map(|t| t.index).collect();
        indices.sort_unstable();
        let expected: Vec<u64> = (s.warm_up..s.warm_up + s.customers).collect();
        assert_eq!(indices, expected);
        let f = fleet(&s);
        for t in &traces {
            assert!(
                t.first_token - t.arrival
                    >= f.iteration.prefill_time(t.prompt_tokens) * (1.0 - 1e-9)
            );
            // After its first token a request needs at least O − 1 more iterations, preempted or not.
            let decodes = f64::from(t.output_tokens - 1) * f.iteration.fixed;
            assert!(t.finish - t.first_token >= decodes * (1.0 - 1e-9), "{t:?}");
        }
        let st = summary.steady.unwrap();
        assert!((st.little.relative_error) < 0.05, "{:?}", st.little);
    }
}

#[test]
fn a_binding_cache_costs_latency_at_the_same_arrival_rate() {
    let with_cache = |tokens| {
        fleet_scenario(
            LengthDist::Fixed { tokens: 400 },
            LengthDist::Geometric {
                mean: 150.0,
                max: None,
            },
            KvCache::Tokens(tokens),
            false,
            0.8,
        )
    };
    // The same arrival rate for both: 80% of what the tight cache can serve.
    let tight = with_cache(16 * 560);
    let mut roomy = with_cache(64 * 4096);
    roomy = roomy.with_offered_load(tight.arrival_rate().unwrap() / roomy.saturation_throughput());
    let (tight, roomy) = (run(&tight, 4).unwrap(), run(&roomy, 4).unwrap());
    assert!(tight.kv_cache.unwrap().preemptions > 0);
    assert_eq!(roomy.kv_cache.unwrap().preemptions, 0);
    let e2e = |s: &RunSummary| s.steady.as_ref().unwrap().e2e.unwrap().mean;
    assert!(
        e2e(&tight) > e2e(&roomy),
        "{} vs {}",
        e2e(&tight),
        e2e(&roomy)
    );
}

#[test]
fn kv_usage_stays_within_the_cache_and_fills_it_under_pressure() {
    let s = fleet_scenario(
        LengthDist::Uniform { min: 16, max: 900 },
        LengthDist::Geometric {
            mean: 60.0,
            max: None,
        },
        KvCache::Tokens(8_000),
        true,
        0.99,
    );
    let summary = run(&s, 2).unwrap();
    let kv = summary.kv_cache.unwrap();
    assert_eq!(kv.blocks_per_replica, 500);
    assert!(kv.peak_usage <= 1.0 && kv.peak_usage > 0.99, "{kv:?}");
    assert!(kv.mean_usage > 0.5 && kv.mean_usage <= kv.peak_usage);
    assert!(summary
        .occupancy
        .iter()
        .all(|o| o.kv_usage.is_some_and(|u| (0.0..=1.0).contains(&u))));
}

#[test]
fn a_cache_too_small_for_the_longest_sequence_is_refused_naming_the_field() {
    let s = fleet_scenario(
        LengthDist::Fixed { tokens: 1000 },
        LengthDist::Fixed { tokens: 100 },
        KvCache::Tokens(1024),
        true,
        0.9,
    );
    let e = run(&s, 1).unwrap_err();
    assert_eq!(e.field, "service.llm.kv_cache");
    assert!(e.problem.contains("1099"), "{e}");
    let mut s = Scenario::distserve_preset();
    if let ServiceKind::Llm(f) = &mut s.service {
        if let KvCache::Memory(m) = &mut f.kv_cache {
            m.gpu_memory_utilization = 0.3;
        }
    }
    let e = run(&s, 1).unwrap_err();
    assert_eq!(e.field, "service.llm.kv_cache");
    assert!(e.problem.contains("no memory for the KV cache"), "{e}");
}

#[test]
fn the_presets_say_from_their_numbers_whether_they_are_kv_bound() {
    let course = Scenario::course_preset();
    let f = fleet(&course);
    let tokens = f.kv_cache.tokens().unwrap();
    // ≈ 1.09 M tokens; a full batch of 64 needs ≈ 13% of it.
    assert!((1_050_000..1_130_000).contains(&tokens), "{tokens}");
    let full_batch = 64.0 * f.kv_tokens_per_slot() / tokens as f64;
    assert!((0.12..0.14).contains(&full_batch), "{full_batch}");
    assert_eq!(f.saturation_batch(), 64.0, "not KV-bound");

    let distserve = Scenario::distserve_preset();
    let f = fleet(&distserve);
    let tokens = f.kv_cache.tokens().unwrap();
    assert!((59_000..62_000).contains(&tokens), "{tokens}");
    let full_batch = 64.0 * f.kv_tokens_per_slot() / tokens as f64;
    assert!((1.0..1.05).contains(&full_batch), "{full_batch}");
    let batch = f.saturation_batch();
    assert!((62.0..64.0).contains(&batch), "KV-bound: {batch}");
    // Near saturation it preempts; the course box never does.
    let near = run(&distserve.with_offered_load(0.95), 11).unwrap();
    assert!(near.kv_cache.unwrap().preemptions > 0);
}

/// Arrival times of every measured request, in arrival order.
fn arrival_gaps(s: &Scenario, seed: u64) -> Vec<f64> {
    let (_, mut traces) = run_traced(s, seed, usize::MAX).unwrap();
    traces.sort_by_key(|t| t.index);
    traces
        .windows(2)
        .map(|w| w[1].arrival - w[0].arrival)
        .collect()
}

fn mean_and_cv(gaps: &[f64]) -> (f64, f64) {
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt() / mean)
}

#[test]
fn gamma_gaps_have_the_requested_mean_and_cv() {
    let n = 400_000;
    for cv in [0.0, 0.5, 1.0, 2.0, 4.0] {
        let mut s = Scenario::textbook_preset().with_offered_load(0.8);
        s.arrivals = Arrivals::Open {
            offered_load: 0.8,
            cv,
        };
        s.customers = n;
        s.warm_up = 0;
        let gaps = arrival_gaps(&s, 3);
        let (mean, measured_cv) = mean_and_cv(&gaps);
        let expected_mean = 1.0 / s.arrival_rate().unwrap();
        // Standard errors: the mean's is cv/√n (0.6% at cv 4); the sample CV's grows with the gamma's kurtosis
        // (6·cv² excess), ≈ 1.1% at cv 2 and ≈ 2.2% at cv 4. Tolerances are about four of them.
        let mean_tolerance = 4.0 * cv.max(0.05) / (n as f64).sqrt();
        assert!(
            (mean - expected_mean).abs() / expected_mean < mean_tolerance,
            "cv {cv}: mean gap {mean} vs {expected_mean}"
        );
        let cv_tolerance = 4.0 * ((6.0 * cv * cv + 2.0) / n as f64).sqrt() / 2.0 + 1e-9;
        assert!(
            (measured_cv - cv).abs() <= cv_tolerance * cv.max(1e-9) + 1e-9,
            "cv {cv}: measured {measured_cv}"
        );
    }
}

#[test]
fn cv_one_reproduces_the_poisson_runs_of_before_gamma_gaps_existed() {
    // Figures printed by `goodput-sim run` at commit d5b6003, before gaps could be anything but exponential.
    let mut textbook = Scenario::textbook_preset().with_offered_load(0.9);
    (textbook.customers, textbook.warm_up) = (50_000, 5_000);
    let st = run(&textbook, 7).unwrap().steady.unwrap();
    let sojourn = st.sojourn.unwrap();
    assert_eq!(
        (
            sojourn.p99,
            sojourn.mean,
            st.wait.unwrap().mean,
            st.throughput
        ),
        (
            12.166666666666666,
            2.8341298612750485,
            1.842743513043811,
            3.591414867316549
        )
    );
    let mut course = Scenario::course_preset().with_offered_load(0.95);
    (course.customers, course.warm_up) = (20_000, 2_000);
    let st = run(&course, 7).unwrap().steady.unwrap();
    let ttft = st.ttft.unwrap();
    assert_eq!(
        (ttft.p99, ttft.mean, st.e2e.unwrap().mean, st.throughput),
        (
            1.3541666666666667,
            0.23876094763453243,
            2.171781513410526,
            25.882480441723658
        )
    );
    // Written out, CV = 1 is the same scenario.
    let explicit = Scenario {
        arrivals: Arrivals::Open {
            offered_load: 0.95,
            cv: 1.0,
        },
        ..course.clone()
    };
    assert_eq!(run(&explicit, 7).unwrap(), run(&course, 7).unwrap());
}

#[test]
fn bursty_arrivals_keep_common_random_numbers_and_a_longer_tail() {
    let at = |load: f64, cv: f64| {
        let mut s = Scenario::textbook_preset();
        s.arrivals = Arrivals::Open {
            offered_load: load,
            cv,
        };
        s.customers = 100_000;
        s.warm_up = 10_000;
        run(&s, 8).unwrap().steady.unwrap().sojourn.unwrap()
    };
    for cv in [0.5, 2.0] {
        // Common random numbers: the same gaps, scaled, so a higher load never lowers the mean wait.
        let mut last = 0.0;
        for load in [0.7, 0.8, 0.9] {
            let mean = at(load, cv).mean;
            assert!(mean >= last, "cv {cv}, load {load}: {mean} < {last}");
            last = mean;
        }
    }
    let (smooth, poisson, bursty) = (at(0.9, 0.5), at(0.9, 1.0), at(0.9, 2.0));
    assert!(smooth.p99 < poisson.p99 && poisson.p99 < bursty.p99);
}
