//! Queue caps (vLLM's `--max-num-queued-reqs` and `--max-num-queued-tokens`): with a cap on waiting + running the
//! LLM mode, collapsed to exponential service, is the M/M/c/K queue of the textbooks; the course box with a cap
//! past saturation sheds load and keeps its tail bounded, and the requests it turns away count against goodput.

use goodput_model::{
    run, Arrivals, IterationModel, KvCache, LengthDist, LlmFleet, RunSummary, Scenario,
    ScenarioSettings, ServiceKind, Slo, Stability, SteadyState,
};

const SEED: u64 = 2026;

fn steady(s: &RunSummary) -> &SteadyState {
    s.steady
        .as_ref()
        .expect("a capped run always reports steady-state figures")
}

fn relative_error(simulated: f64, exact: f64) -> f64 {
    (simulated - exact).abs() / exact
}

/// The M/M/c/K queue's figures: `c` servers of rate `mu`, room for `k` requests in the system, Poisson arrivals at
/// `lambda`; arrivals that find `k` present are lost.
struct Mmck {
    /// Probability an arrival is lost, `p_K` (Poisson arrivals see time averages).
    loss: f64,
    /// Mean wait before service of an admitted request.
    mean_wait: f64,
    /// Mean number in the system.
    mean_in_system: f64,
}

/// Computes the stationary law `p_n ∝ aⁿ/n!` (n ≤ c), `aᶜ/c!·(a/c)ⁿ⁻ᶜ` (c < n ≤ K) with `a = λ/μ`, built term by
/// term (each is the one before times `a/min(n, c)`) so nothing overflows, then the loss probability, the mean
/// queue, and the mean wait by Little's Law on the admitted stream `λ(1 − p_K)`.
fn mmck(c: u32, k: u32, lambda: f64, mu: f64) -> Mmck {
    let a = lambda / mu;
    let mut weights = vec![1.0_f64];
    for n in 1..=k {
        let previous = weights[n as usize - 1];
        weights.push(previous * a / f64::from(n.min(c)));
    }
    let total: f64 = weights.iter().sum();
    let p: Vec<f64> = weights.iter().map(|w| w / total).collect();
    let loss = p[k as usize];
    let mean_in_system = p.iter().enumerate().map(|(n, pn)| n as f64 * pn).sum();
    let mean_queue: f64 = p
        .iter()
        .enumerate()
        .skip(c as usize + 1)
        .map(|(n, pn)| (n as f64 - f64::from(c)) * pn)
        .sum();
    Mmck {
        loss,
        mean_wait: mean_queue / (lambda * (1.0 - loss)),
        mean_in_system,
    }
}

#[test]
fn mmck_reference_matches_erlang_b_and_a_hand_computed_case() {
    // K = c: no room to wait, Erlang's loss formula B(c, a). B(2, 1) = (1/2) / (1 + 1 + 1/2) = 0.2.
    let b = mmck(2, 2, 1.0, 1.0);
    assert!((b.loss - 0.2).abs() < 1e-12);
    assert_eq!(b.mean_wait, 0.0);
    // M/M/1/2 at a = 1: p0 = p1 = p2 = 1/3; one waits when two are present: Lq = 1/3, admitted rate 2/3, Wq = 1/2.
    let one = mmck(1, 2, 1.0, 1.0);
    assert!((one.loss - 1.0 / 3.0).abs() < 1e-12);
    assert!((one.mean_wait - 0.5).abs() < 1e-12);
    assert!((one.mean_in_system - 1.0).abs() < 1e-12);
}

/// LLM replicas that behave like exponential servers: one sequence each, every iteration `δ` long whatever it holds,
/// and a geometric number of output tokens of mean `m`, so the service `δ·O` is nearly exponential with mean 1 s.
fn exponential_fleet(replicas: u32, max_num_queued_reqs: u32) -> LlmFleet {
    let m = 50.0;
    LlmFleet {
        replicas,
        max_num_seqs: 1,
        max_num_batched_tokens: 8192,
        chunked_prefill: true,
        prefill_first: false,
        iteration: IterationModel {
            fixed: 1.0 / m,
            per_prefill_token: 0.0,
            per_decode_seq: 0.0,
            per_context_token: 0.0,
            compute: None,
        },
        prompt_tokens: LengthDist::Fixed { tokens: 100 },
        output_tokens: LengthDist::Geometric { mean: m, max: None },
        kv_cache: KvCache::Unlimited,
        prefix_caching: true,
        frontend_overhead: 0.0,
        max_num_queued_reqs: Some(max_num_queued_reqs),
        max_num_queued_tokens: None,
        shared_prefix_tokens: 0,
    }
}

#[test]
fn a_cap_on_waiting_plus_running_is_the_mmck_queue() {
    // Two replicas, each turning arrivals away at 4 in flight: the fleet holds K = 8. Below, at and past
    // saturation: a capped queue has a steady state at every load.
    let (c, per_replica) = (2u32, 4u32);
    for rho in [0.8, 1.0, 1.3] {
        let fleet = exponential_fleet(c, per_replica);
        let delta = fleet.iteration.fixed;
        let s = Scenario {
            service: ServiceKind::Llm(fleet),
            arrivals: Arrivals::poisson(rho),
            slo: Slo {
                ttft: 1.0,
                tpot: 1.0,
            },
            customers: 2_000_000,
            warm_up: 50_000,
        };
        assert!(relative_error(s.saturation_throughput(), f64::from(c)) < 1e-12);
        let exact = mmck(c, c * per_replica, rho * f64::from(c), 1.0);
        let summary = run(&s, SEED).unwrap();
        assert_eq!(summary.stability, Stability::Stable);
        let st = steady(&summary);
        let shed = summary
            .admission
            .expect("a capped fleet reports rejections");
        // The first token comes out of the request's first iteration, so the wait is TTFT − δ.
        let wait = st.ttft.unwrap().mean - delta;
        println!(
            "ρ={rho}: turned away {:.4} vs {:.4}, mean wait {wait:.4} vs {:.4}, in system {:.3} vs {:.3}",
            shed.rejection_rate,
            exact.loss,
            exact.mean_wait,
            st.in_system_mean,
            exact.mean_in_system
        );
        assert!(
            relative_error(shed.rejection_rate, exact.loss) < 0.03,
            "ρ={rho}: loss {} vs exact {}",
            shed.rejection_rate,
            exact.loss
        );
        assert!(
            relative_error(wait, exact.mean_wait) < 0.04,
            "ρ={rho}: mean wait {wait} vs exact {}",
            exact.mean_wait
        );
        assert!(relative_error(st.in_system_mean, exact.mean_in_system) < 0.03);
        assert_eq!(
            shed.rejected, shed.rejected_by_reason.max_num_queued_reqs,
            "only the request cap is set"
        );
        // Every measured request is served or turned away; the served ones flow at λ(1 − p_K).
        let arrival_rate = rho * f64::from(c);
        assert!(relative_error(st.throughput, arrival_rate * (1.0 - exact.loss)) < 0.02);
        assert!(relative_error(shed.rejected_per_second, arrival_rate * exact.loss) < 0.04);
    }
}

/// The course box (64 sequences) at `load`, with a cap of `cap` requests in flight; shorter than the preset's run.
fn course_capped(load: f64, cap: Option<u32>) -> Scenario {
    ScenarioSettings {
        load: Some(load),
        max_num_queued_reqs: cap,
        requests: Some(40_000),
        ..ScenarioSettings::default()
    }
    .apply(&Scenario::course_preset())
    .unwrap()
}

#[test]
fn a_capped_course_box_at_120_percent_sheds_load_and_keeps_its_tail_bounded() {
    // Uncapped at 120% the queue only grows: no steady state, no percentiles.
    let uncapped = run(&course_capped(1.2, None), SEED).unwrap();
    assert!(matches!(uncapped.stability, Stability::Unstable { .. }));
    assert!(uncapped.steady.is_none() && uncapped.admission.is_none());

    // Capped at twice --max-num-seqs: at most 64 wait behind the 64 running.
    let capped = course_capped(1.2, Some(128));
    let summary = run(&capped, SEED).unwrap();
    assert_eq!(summary.stability, Stability::Stable);
    let st = steady(&summary);
    let shed = summary.admission.unwrap();
    let ttft = st.ttft.unwrap();
    println!(
        "120%, cap 128: turned away {:.1}% ({:.2}/s), p50/p99 TTFT {:.3}/{:.3} s, throughput {:.2}/s of {:.2}, \
         goodput {:.2}/s, attainment {:.1}%, waiting {:.1}",
        100.0 * shed.rejection_rate,
        shed.rejected_per_second,
        ttft.p50,
        ttft.p99,
        st.throughput,
        summary.saturation_throughput,
        st.goodput,
        st.slo_attainment,
        st.waiting_mean
    );
    // It turns away about the excess over saturation, 1 − 1/1.2 ≈ 17% of arrivals.
    assert!(shed.rejection_rate > 1.0 - 1.0 / 1.2 - 0.01);
    assert!(shed.rejection_rate < 0.2);
    assert!(shed.rejected > 0 && shed.rejected < summary.measured);
    // Those it serves wait behind at most 64 others for a slot, which free at ≈ 27/s: about 2.4 s, a bounded tail
    // (uncapped, it grows without limit) but far above the 500 ms SLO.
    assert!(ttft.p99 > 1.0 && ttft.p99 < 5.0, "p99 TTFT {} s", ttft.p99);
    assert!(st.waiting_mean <= 64.0 + 1e-9);
    // It serves close to its saturation throughput.
    assert!(st.throughput > 0.9 * summary.saturation_throughput);
    // A turned-away request fails both SLOs: attainment is at most the share served. Here nearly every admitted
    // request waits behind a full queue too, so almost none meets the TTFT SLO: goodput collapses.
    let served_share = 1.0 - shed.rejection_rate;
    assert!(st.slo_attainment / 100.0 <= served_share + 1e-12);
    assert!(st.slo_attainment < 5.0);
    assert!(st.goodput < 0.05 * st.throughput);
    // Goodput is the rate of requests served within both SLOs: attainment × arrival rate.
    let good_rate = st.slo_attainment / 100.0 * st.effective_arrival_rate;
    assert!((st.goodput - good_rate).abs() <= 0.01 * st.throughput);
}

#[test]
fn a_token_cap_sized_by_littles_law_keeps_ttft_near_its_target_and_goodput_up() {
    // T ≈ target TTFT × prefill throughput: 0.5 s × (27 requests/s × 2112 prompt tokens) ≈ 28 000 tokens.
    let s = ScenarioSettings {
        load: Some(1.2),
        max_num_queued_tokens: Some(28_000),
        requests: Some(40_000),
        ..ScenarioSettings::default()
    }
    .apply(&Scenario::course_preset())
    .unwrap();
    let summary = run(&s, SEED).unwrap();
    let st = steady(&summary);
    let shed = summary.admission.unwrap();
    let ttft = st.ttft.unwrap();
    println!(
        "120%, token cap 28 000: turned away {:.1}%, p99 TTFT {:.3} s, goodput {:.2}/s, attainment {:.1}%",
        100.0 * shed.rejection_rate,
        ttft.p99,
        st.goodput,
        st.slo_attainment
    );
    assert_eq!(shed.rejected, shed.rejected_by_reason.max_num_queued_tokens);
    // It turns away about the excess, and what it admits meets its first-token target (within one prefill).
    assert!(shed.rejection_rate > 1.0 - 1.0 / 1.2 - 0.01 && shed.rejection_rate < 0.2);
    assert!(ttft.p99 < 0.6, "p99 TTFT {} s", ttft.p99);
    assert!(st.goodput > 0.7 * summary.saturation_throughput);
}

#[test]
fn closed_loop_users_turned_away_think_and_try_again() {
    // 200 users against a fleet that holds 80 at a time: some find it full, think, and send again.
    let s = ScenarioSettings {
        users: Some(200),
        think_time: Some(1.0),
        max_num_queued_reqs: Some(80),
        requests: Some(10_000),
        ..ScenarioSettings::default()
    }
    .apply(&Scenario::course_preset())
    .unwrap();
    let summary = run(&s, SEED).unwrap();
    let shed = summary.admission.unwrap();
    let st = steady(&summary);
    assert!(shed.rejected > 0 && shed.rejected < summary.measured);
    assert!(st.running_mean + st.waiting_mean <= 80.0 + 1e-9);
    assert!(st.throughput > 0.9 * summary.saturation_throughput);
}

#[test]
fn without_a_cap_nothing_changes() {
    let s = course_capped(0.9, None);
    let mut capped_off = s.clone();
    if let ServiceKind::Llm(fleet) = &mut capped_off.service {
        fleet.max_num_queued_reqs = None;
    }
    let (a, b) = (run(&s, SEED).unwrap(), run(&capped_off, SEED).unwrap());
    assert_eq!(a, b);
    assert!(a.admission.is_none());
    // A cap far above anything the run reaches turns nobody away and leaves every figure as it was.
    let generous = course_capped(0.9, Some(1_000_000));
    let c = run(&generous, SEED).unwrap();
    assert_eq!(c.admission.unwrap().rejected, 0);
    assert_eq!(c.steady, a.steady);
}

#[test]
fn a_finite_run_past_capacity_counts_what_the_cap_turned_away_as_failed() {
    use goodput_model::{bench_requests, measured_saturation_throughput, replay};
    let capped = ScenarioSettings {
        max_num_queued_reqs: Some(80),
        ..ScenarioSettings::default()
    }
    .apply(&Scenario::course_preset())
    .unwrap();
    // 2 000 requests at 1.5 × the analytic capacity.
    let rate = 1.5 * capped.saturation_throughput();
    let requests = bench_requests(&capped, rate, 2_000, SEED).unwrap();
    let bench = replay(&capped, &requests, Some(rate)).unwrap();
    println!(
        "finite, 150%: {} sent, {} failed, attainment {:.1}%, TTFT p99 {:.3} s",
        bench.requests, bench.failed, bench.slo_attainment, bench.ttft.p99
    );
    assert_eq!(bench.requests, 2_000);
    assert!(
        bench.failed > 300 && bench.failed < 1_000,
        "{}",
        bench.failed
    );
    assert_eq!(
        bench.ttft.count,
        2_000 - bench.failed,
        "only completed requests have latencies"
    );
    assert!(bench.slo_attainment <= 100.0 * (2_000 - bench.failed) as f64 / 2_000.0);
    // Uncapped, the same requests all complete.
    let uncapped = replay(&Scenario::course_preset(), &requests, Some(rate)).unwrap();
    assert_eq!((uncapped.requests, uncapped.failed), (2_000, 0));
    // The capacity the fleet has does not depend on the cap.
    assert_eq!(
        measured_saturation_throughput(&capped, SEED).unwrap(),
        measured_saturation_throughput(&Scenario::course_preset(), SEED).unwrap()
    );
}
