//! The simulator against exact queueing theory: Erlang C, exact MVA, Little's Law, and the LLM mode collapsing to
//! M/M/c. Run lengths grow like (1−ρ)⁻², as the statistics near saturation demand; the seeds were checked against
//! several others (errors stayed well inside the tolerances), so the tests do not pass by luck.

use goodput_model::{
    erlang_c, mva, run, Arrivals, IterationModel, KvCache, LengthDist, LlmFleet, RunSummary,
    Scenario, ServiceKind, Slo, SteadyState, TextbookService,
};

const SEED: u64 = 2026;

fn textbook(servers: u32, arrivals: Arrivals, customers: u64, warm_up: u64) -> Scenario {
    Scenario {
        service: ServiceKind::Textbook(TextbookService {
            servers,
            mean_service: 1.0,
        }),
        arrivals,
        slo: Slo {
            ttft: 5.0,
            tpot: 1.0,
        },
        customers,
        warm_up,
    }
}

fn steady(s: &RunSummary) -> &SteadyState {
    s.steady
        .as_ref()
        .expect("a stable run reports steady-state figures")
}

fn relative_error(simulated: f64, exact: f64) -> f64 {
    (simulated - exact).abs() / exact
}

/// Customers for a mean-wait estimate within 2% at load ρ: 6 M at ρ = 0.85 scaled by (1−ρ)⁻², but at least 24 M,
/// because with many servers and moderate load few customers wait and the relative error of the mean wait is larger
/// than the (1−ρ)⁻² rule suggests (6 M gave errors up to 2% for c = 8 at ρ = 0.85).
fn customers_for(rho: f64) -> u64 {
    (6.0e6 * (0.15 / (1.0 - rho)).powi(2)).max(24.0e6).round() as u64
}

fn check_against_erlang_c(rho: f64) {
    for c in [1, 4, 8] {
        let exact = erlang_c(c, rho * f64::from(c), 1.0).unwrap();
        let s = textbook(c, Arrivals::poisson(rho), customers_for(rho), 0);
        let summary = run(&s, SEED).unwrap();
        let st = steady(&summary);
        let wait = st.wait.unwrap().mean;
        let p99 = st.sojourn.unwrap().p99;
        let (we, pe) = (
            relative_error(wait, exact.mean_wait),
            relative_error(p99, exact.sojourn_quantile(0.99)),
        );
        println!("c={c} ρ={rho}: mean wait {wait:.4} vs {:.4} ({:.2}%), p99 sojourn {p99:.3} vs {:.3} ({:.2}%)",
            exact.mean_wait, 100.0 * we, exact.sojourn_quantile(0.99), 100.0 * pe);
        assert!(
            we < 0.02,
            "c={c} ρ={rho}: mean wait {wait} vs exact {}",
            exact.mean_wait
        );
        assert!(
            pe < 0.05,
            "c={c} ρ={rho}: p99 sojourn {p99} vs exact {}",
            exact.sojourn_quantile(0.99)
        );
    }
}

#[test]
fn mmc_matches_erlang_c_at_85_percent_load() {
    check_against_erlang_c(0.85);
}

#[test]
fn mmc_matches_erlang_c_at_90_percent_load() {
    check_against_erlang_c(0.90);
}

#[test]
fn mmc_matches_erlang_c_at_95_percent_load() {
    check_against_erlang_c(0.95);
}

#[test]
fn closed_loop_matches_exact_mean_value_analysis() {
    // Below, at, and far beyond the saturation population N* = c·(1 + Zμ) = 20.
    for users in [8, 20, 64] {
        let exact = mva(4, 1.0, 4.0, users).unwrap();
        let s = textbook(
            4,
            Arrivals::Closed {
                users,
                think_time: 4.0,
            },
            1_000_000,
            50_000,
        );
        let summary = run(&s, SEED).unwrap();
        let st = steady(&summary);
        let (x, r) = (st.throughput, st.sojourn.unwrap().mean);
        println!(
            "N={users}: X {x:.4} vs {:.4}, R {r:.4} vs {:.4}",
            exact.throughput, exact.response_time
        );
        assert!(
            relative_error(x, exact.throughput) < 0.02,
            "N={users}: X {x} vs {}",
            exact.throughput
        );
        assert!(
            relative_error(r, exact.response_time) < 0.02,
            "N={users}: R {r} vs {}",
            exact.response_time
        );
    }
}

fn llm_fleet(max_num_seqs: u32, chunked_prefill: bool) -> LlmFleet {
    let Scenario {
        service: ServiceKind::Llm(mut fleet),
        ..
    } = Scenario::course_preset()
    else {
        unreachable!()
    };
    fleet.max_num_seqs = max_num_seqs;
    fleet.chunked_prefill = chunked_prefill;
    fleet
}

/// Steps that take `delta` whatever they hold.
fn every_step(delta: f64) -> IterationModel {
    IterationModel {
        fixed: delta,
        per_prefill_token: 0.0,
        per_decode_seq: 0.0,
        per_context_token: 0.0,
        compute: None,
    }
}

#[test]
fn littles_law_holds_in_every_mode() {
    let course = Scenario::course_preset();
    let mut no_chunking = course.clone();
    no_chunking.service = ServiceKind::Llm(llm_fleet(64, false));
    let scenarios = [
        (
            "textbook open",
            textbook(4, Arrivals::poisson(0.9), 1_000_000, 0),
        ),
        (
            "textbook closed",
            textbook(
                4,
                Arrivals::Closed {
                    users: 16,
                    think_time: 4.0,
                },
                500_000,
                10_000,
            ),
        ),
        (
            "llm open",
            Scenario {
                customers: 100_000,
                warm_up: 10_000,
                ..course.clone()
            },
        ),
        (
            "llm closed",
            Scenario {
                customers: 100_000,
                warm_up: 10_000,
                ..Scenario::course_closed_preset()
            },
        ),
        (
            "llm open, no chunked prefill",
            Scenario {
                customers: 100_000,
                warm_up: 10_000,
                ..no_chunking
            },
        ),
        (
            "distserve open",
            Scenario {
                customers: 100_000,
                warm_up: 10_000,
                ..Scenario::distserve_preset()
            },
        ),
    ];
    for (name, s) in scenarios {
        let summary = run(&s, SEED).unwrap();
        let little = steady(&summary).little;
        println!(
            "{name}: L = {:.4}, X·W = {:.4}",
            little.time_averaged_in_system, little.throughput_times_latency
        );
        assert!(little.relative_error < 0.02, "{name}: {little:?}");
    }
}

#[test]
fn llm_mode_collapses_to_mmc_with_one_slot_free_prefill_and_constant_iterations() {
    // Each iteration takes δ whatever it holds; a request needs O iterations with O geometric of mean m, so its
    // service is δ·O ≈ exponential with mean δ·m = 1 s (squared coefficient of variation 1 − 1/m).
    let (c, rho, m) = (4u32, 0.85, 50.0);
    let delta = 1.0 / m;
    let s = Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: c,
            max_num_seqs: 1,
            max_num_batched_tokens: 8192,
            chunked_prefill: true,
            prefill_first: false,
            iteration: every_step(delta),
            prompt_tokens: LengthDist::Fixed { tokens: 100 },
            output_tokens: LengthDist::Geometric { mean: m, max: None },
            kv_cache: KvCache::Unlimited,
            prefix_caching: true,
            frontend_overhead: 0.0,
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens: 0,
        }),
        arrivals: Arrivals::poisson(rho),
        slo: Slo {
            ttft: 1.0,
            tpot: 1.0,
        },
        customers: 2_000_000,
        warm_up: 100_000,
    };
    assert!(relative_error(s.saturation_throughput(), f64::from(c)) < 1e-12);
    let exact = erlang_c(c, rho * f64::from(c), 1.0).unwrap();
    let summary = run(&s, SEED).unwrap();
    let st = steady(&summary);
    let (ttft, e2e) = (st.ttft.unwrap(), st.e2e.unwrap());
    let wait = ttft.mean - delta; // the first token comes out of the request's first iteration
    println!(
        "wait {wait:.4} vs {:.4}, sojourn {:.4} vs {:.4}, p99 sojourn {:.3} vs {:.3}",
        exact.mean_wait,
        e2e.mean,
        exact.mean_sojourn,
        e2e.p99,
        exact.sojourn_quantile(0.99)
    );
    assert!(relative_error(wait, exact.mean_wait) < 0.05);
    assert!(relative_error(e2e.mean, exact.mean_sojourn) < 0.05);
    assert!(relative_error(e2e.p99, exact.sojourn_quantile(0.99)) < 0.05);
}

/// vLLM's V0 scheduler without chunked prefill runs the prompts waiting after a step in a step of their own, and the
/// running sequences wait. With every step δ long and Poisson arrivals at λ, a step is followed by a prompt step
/// exactly when a request arrived during it (probability `p = 1 − e^{−λδ}`), so the steps form a Markov chain whose
/// share of decode steps is `1 − p`: a decoding sequence gets a token every `δ / (1 − p) = δ·e^{λδ}` on average.
/// V1 decodes every running sequence in every step: a token every δ.
#[test]
fn under_v0s_scheduler_the_decodes_wait_for_each_step_of_prompts() {
    let (delta, lambda) = (0.02, 15.0);
    for prefill_first in [false, true] {
        let mut s = Scenario {
            service: ServiceKind::Llm(LlmFleet {
                prefill_first,
                chunked_prefill: false,
                max_num_seqs: 1024,
                max_num_batched_tokens: 16_384,
                iteration: every_step(delta),
                prompt_tokens: LengthDist::Fixed { tokens: 100 },
                output_tokens: LengthDist::Fixed { tokens: 50 },
                kv_cache: KvCache::Unlimited,
                ..llm_fleet(1024, false)
            }),
            arrivals: Arrivals::poisson(0.5),
            slo: Slo {
                ttft: 1.0,
                tpot: 1.0,
            },
            customers: 100_000,
            warm_up: 10_000,
        };
        s.arrivals = Arrivals::poisson(lambda / s.saturation_throughput());
        let summary = run(&s, SEED).unwrap();
        let tpot = steady(&summary).tpot.unwrap().mean;
        let expected = if prefill_first {
            delta * (lambda * delta).exp()
        } else {
            delta
        };
        println!("prefill first {prefill_first}: TPOT {tpot:.5} s, theory {expected:.5} s");
        assert!(
            relative_error(tpot, expected) < 0.01,
            "prefill first {prefill_first}: TPOT {tpot} vs {expected}"
        );
    }
}
