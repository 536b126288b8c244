//! The batch trace against the model it records: slots, token budget, iteration lengths and a followed request's life
//! must be exactly what the scheduler did (the same run `run_traced` reports), and the record stays bounded.

use goodput_model::{
    run_traced, trace_batch, BatchTrace, EndAfterFollow, KvCache, PhaseKind, RequestTrace,
    Scenario, ScenarioSettings, TraceSpec, Work, MAX_CELLS, MAX_ITERATIONS,
};

/// A preset with `changes`, at `load`, 3000 measured requests after 500 of warm-up.
fn scenario(base: Scenario, load: f64, changes: ScenarioSettings) -> Scenario {
    ScenarioSettings {
        load: Some(load),
        requests: Some(3_000),
        warm_up: Some(500),
        ..changes
    }
    .apply(&base)
    .expect("valid scenario")
}

fn course(load: f64) -> Scenario {
    scenario(Scenario::course_preset(), load, ScenarioSettings::default())
}

/// The course box with a token budget smaller than its prompts (1216–3008 tokens), chunked or not.
fn small_budget(load: f64, chunked: bool) -> Scenario {
    scenario(
        Scenario::course_preset(),
        load,
        ScenarioSettings {
            max_num_batched_tokens: Some(2048),
            chunked_prefill: Some(chunked),
            ..ScenarioSettings::default()
        },
    )
}

fn window(from: f64, until: f64) -> TraceSpec {
    TraceSpec {
        replica: 0,
        from,
        until,
        follow: None,
        end_after_follow: None,
    }
}

fn fleet(s: &Scenario) -> &goodput_model::LlmFleet {
    match &s.service {
        goodput_model::ServiceKind::Llm(fleet) => fleet,
        _ => panic!("an LLM scenario"),
    }
}

/// Every scenario the invariants are checked on: both presets, chunked and not, small batches, two replicas, a KV
/// cache tight enough to preempt.
fn scenarios() -> Vec<(String, Scenario)> {
    let mut all = Vec::new();
    for load in [0.85, 0.99] {
        all.push((format!("course {load}"), course(load)));
        all.push((
            format!("course unchunked {load}"),
            scenario(
                Scenario::course_preset(),
                load,
                ScenarioSettings {
                    chunked_prefill: Some(false),
                    ..Default::default()
                },
            ),
        ));
        for chunked in [true, false] {
            all.push((
                format!("course budget 2048 chunked={chunked} {load}"),
                small_budget(load, chunked),
            ));
        }
        all.push((
            format!("course 8 slots, 2 replicas {load}"),
            scenario(
                Scenario::course_preset(),
                load,
                ScenarioSettings {
                    max_num_seqs: Some(8),
                    servers: Some(2),
                    ..Default::default()
                },
            ),
        ));
        all.push((
            format!("distserve {load}"),
            scenario(Scenario::distserve_preset(), load, Default::default()),
        ));
        all.push((
            format!("distserve, small KV cache {load}"),
            scenario(
                Scenario::distserve_preset(),
                load,
                ScenarioSettings {
                    gpu_memory_utilization: Some(0.8),
                    ..Default::default()
                },
            ),
        ));
    }
    all
}

fn traced(s: &Scenario) -> BatchTrace {
    let trace = trace_batch(s, 11, &window(30.0, 40.0)).expect("traced");
    assert!(!trace.iterations.is_empty(), "a busy replica iterates");
    trace
}

#[test]
fn slots_never_exceed_max_num_seqs_and_each_holds_one_sequence() {
    for (name, s) in scenarios() {
        let trace = traced(&s);
        let cap = fleet(&s).max_num_seqs;
        for it in &trace.iterations {
            let cells = trace.cells_of(it);
            let mut slots: Vec<u32> = cells.iter().map(|c| c.slot).collect();
            assert!(
                slots.iter().all(|&slot| slot < cap),
                "{name}: a slot beyond {cap}"
            );
            slots.sort_unstable();
            slots.dedup();
            assert_eq!(
                slots.len(),
                cells.len(),
                "{name}: two sequences in one slot"
            );
            assert!(
                it.busy_slots <= cap,
                "{name}: {} busy of {cap}",
                it.busy_slots
            );
            let running = cells.iter().filter(|c| c.work != Work::Preempted).count();
            assert_eq!(
                running as u32, it.busy_slots,
                "{name}: cells and the running batch"
            );
            assert_eq!(
                cells.iter().filter(|c| c.work == Work::Preempted).count() as u32,
                it.preempted,
                "{name}"
            );
        }
        // A sequence keeps its row from one iteration to the next.
        for pair in trace.iterations.windows(2) {
            for before in trace.cells_of(&pair[0]) {
                if let Some(after) = trace
                    .cells_of(&pair[1])
                    .iter()
                    .find(|c| c.request == before.request)
                {
                    assert_eq!(
                        before.slot, after.slot,
                        "{name}: request {} moved rows",
                        before.request
                    );
                }
            }
        }
    }
}

#[test]
fn each_iteration_lasts_what_the_step_time_model_gives_for_its_cells() {
    for (name, s) in scenarios() {
        let trace = traced(&s);
        let model = &fleet(&s).iteration;
        for it in &trace.iterations {
            let cells = trace.cells_of(it);
            let prefill: u64 = cells
                .iter()
                .map(|c| match c.work {
                    Work::Prefill { tokens, .. } => u64::from(tokens),
                    _ => 0,
                })
                .sum();
            let decoding = cells.iter().filter(|c| c.work == Work::Decode).count() as u64;
            assert_eq!(prefill, it.prefill_tokens, "{name}: prefill tokens");
            assert_eq!(decoding, it.decode_seqs, "{name}: decoding sequences");
            let expected = model.duration(it.prefill_tokens, it.decode_seqs, it.context_tokens);
            assert!(
                (it.duration() - expected).abs() <= 1e-9 * expected.max(1.0),
                "{name}: iteration {} lasts {} s, the model says {expected} s",
                it.number,
                it.duration()
            );
        }
        for pair in trace.iterations.windows(2) {
            assert!(
                pair[1].start >= pair[0].end - 1e-12,
                "{name}: iterations overlap"
            );
            assert_eq!(
                pair[1].number,
                pair[0].number + 1,
                "{name}: an iteration missing"
            );
        }
        assert!(trace
            .iterations
            .iter()
            .all(|it| it.start >= 30.0 && it.start < 40.0));
    }
}

#[test]
fn a_prefill_chunk_never_exceeds_the_token_budget() {
    for (name, s) in scenarios() {
        let trace = traced(&s);
        let f = fleet(&s);
        let budget = u64::from(f.max_num_batched_tokens);
        for it in &trace.iterations {
            for cell in trace.cells_of(it) {
                if let Work::Prefill {
                    tokens, completes, ..
                } = cell.work
                {
                    if f.chunked_prefill {
                        assert!(
                            u64::from(tokens) <= budget,
                            "{name}: a {tokens}-token chunk"
                        );
                    } else {
                        assert!(completes, "{name}: unchunked, a prompt is prefilled whole");
                    }
                }
            }
            if f.chunked_prefill {
                assert!(
                    it.prefill_tokens + it.decode_seqs <= budget,
                    "{name}: {} prefill and {} decode tokens in one iteration",
                    it.prefill_tokens,
                    it.decode_seqs
                );
            } else if it.prefill_tokens + it.decode_seqs > budget {
                // Over the budget only with one prompt longer than what was left of it, alone.
                let prompts = trace
                    .cells_of(it)
                    .iter()
                    .filter(|c| matches!(c.work, Work::Prefill { .. }))
                    .count();
                assert_eq!(
                    prompts, 1,
                    "{name}: an over-budget iteration holds one prompt"
                );
            }
        }
    }
    // With a budget smaller than the prompts, chunking really splits them; without it, whole prompts ride alone.
    let chunked = traced(&small_budget(0.9, true));
    let split = chunked.cells.iter().any(|c| {
        matches!(
            c.work,
            Work::Prefill {
                completes: false,
                ..
            }
        )
    });
    assert!(split, "some prompt prefills in more than one chunk");
    let whole = traced(&small_budget(0.9, false));
    assert!(whole.iterations.iter().any(|it| it.prefill_tokens > 2048));
}

#[test]
fn unchunked_an_iteration_holding_a_whole_long_prompt_lasts_at_least_its_prefill_time() {
    for s in [
        small_budget(0.9, false),
        scenario(
            Scenario::course_preset(),
            0.95,
            ScenarioSettings {
                chunked_prefill: Some(false),
                ..Default::default()
            },
        ),
    ] {
        let trace = traced(&s);
        let model = &fleet(&s).iteration;
        let mut long = 0;
        for it in &trace.iterations {
            for cell in trace.cells_of(it) {
                if let Work::Prefill {
                    tokens,
                    completes,
                    recompute: false,
                } = cell.work
                {
                    assert!(completes);
                    let alone = model.prefill_time(tokens);
                    assert!(
                        it.duration() >= alone,
                        "a {tokens}-token prompt in a {} s iteration, its prefill alone takes {alone} s",
                        it.duration()
                    );
                    long += usize::from(tokens > 2_500);
                }
            }
        }
        assert!(long > 0, "the window holds long prompts");
    }
}

/// The measured request at the 99th percentile of TTFT, and a few others along the distribution.
fn requests_to_follow(traces: &[RequestTrace]) -> Vec<RequestTrace> {
    let mut by_ttft: Vec<RequestTrace> = traces.to_vec();
    by_ttft.sort_by(|a, b| (a.first_token - a.arrival).total_cmp(&(b.first_token - b.arrival)));
    let n = by_ttft.len();
    [n / 10, n / 2, n * 9 / 10, n * 99 / 100, n - 1]
        .into_iter()
        .map(|i| by_ttft[i])
        .collect()
}

/// Follows `request` in `s` and checks its life against the model's own trace of it.
fn check_followed(
    name: &str,
    s: &Scenario,
    request: &RequestTrace,
) -> goodput_model::FollowedRequest {
    let spec = TraceSpec {
        replica: request.replica,
        from: request.arrival - 0.5,
        until: request.arrival + 60.0,
        follow: Some(request.index),
        end_after_follow: Some(EndAfterFollow {
            linger: 0.2,
            not_before: request.arrival + 1.0,
        }),
    };
    let trace = trace_batch(s, 11, &spec).expect("traced");
    let followed = trace.followed.clone().expect("it arrived");
    let what = format!("{name}: request {}", request.index);
    assert_eq!(followed.arrival, request.arrival, "{what}: arrival");
    assert_eq!(
        followed.first_token,
        Some(request.first_token),
        "{what}: first token"
    );
    assert_eq!(followed.finish, Some(request.finish), "{what}: finish");
    assert_eq!(followed.replica, Some(request.replica), "{what}: replica");
    assert_eq!(followed.output_tokens, request.output_tokens, "{what}");
    let phases = &followed.phases;
    assert_eq!(phases[0].kind, PhaseKind::Waiting, "{what}: starts waiting");
    assert_eq!(phases[0].start, request.arrival);
    assert_eq!(
        phases.last().unwrap().end,
        request.finish,
        "{what}: ends at its last token"
    );
    for pair in phases.windows(2) {
        assert_eq!(pair[0].end, pair[1].start, "{what}: phases without gaps");
    }
    let total: f64 = phases.iter().map(|p| p.duration()).sum();
    let e2e = request.finish - request.arrival;
    assert!(
        (total - e2e).abs() <= 1e-9 * e2e,
        "{what}: phases {total} s, e2e {e2e} s"
    );
    // TTFT is everything before its first decode (or its last token, with one output token).
    let first_decode = phases
        .iter()
        .position(|p| p.kind == PhaseKind::Decode)
        .unwrap_or(phases.len());
    let before: f64 = phases[..first_decode].iter().map(|p| p.duration()).sum();
    let ttft = request.first_token - request.arrival;
    if followed.preemptions == 0 {
        assert!(
            (before - ttft).abs() <= 1e-9 * ttft.max(1.0),
            "{what}: TTFT {ttft}, phases {before}"
        );
        let decoded: u64 = phases
            .iter()
            .filter(|p| p.kind == PhaseKind::Decode)
            .map(|p| p.tokens)
            .sum();
        assert_eq!(
            decoded,
            u64::from(request.output_tokens - 1),
            "{what}: one token per decode step"
        );
    }
    // Its prefill covers its prompt, in chunks no larger than the budget.
    let prefilled: u64 = phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Prefill)
        .map(|p| p.tokens)
        .sum();
    assert!(
        prefilled >= u64::from(request.prompt_tokens),
        "{what}: prefilled {prefilled}"
    );
    assert!(followed.chunk_count() >= 1);
    // The window followed it: it closes shortly after the request finished.
    assert!(trace.until <= (request.finish + 0.2).max(request.arrival + 1.0) + 1e-9);
    followed
}

#[test]
fn a_followed_requests_phases_add_up_to_its_end_to_end_latency() {
    for (name, s) in [
        ("course 0.85", course(0.85)),
        ("course 0.99", course(0.99)),
        ("budget 2048 chunked", small_budget(0.95, true)),
        (
            "two replicas",
            scenario(
                Scenario::course_preset(),
                0.95,
                ScenarioSettings {
                    servers: Some(2),
                    ..Default::default()
                },
            ),
        ),
    ] {
        let (_, traces) = run_traced(&s, 11, usize::MAX).expect("run");
        for request in requests_to_follow(&traces) {
            check_followed(name, &s, &request);
        }
    }
}

#[test]
fn a_preempted_request_waits_again_and_recomputes() {
    let s = scenario(
        Scenario::distserve_preset(),
        0.99,
        ScenarioSettings {
            gpu_memory_utilization: Some(0.8),
            ..Default::default()
        },
    );
    assert!(matches!(fleet(&s).kv_cache, KvCache::Memory(_)));
    let (summary, traces) = run_traced(&s, 11, usize::MAX).expect("run");
    assert!(
        summary.kv_cache.unwrap().preemptions > 0,
        "the scenario preempts"
    );
    // The longest-lived requests are the likeliest to have been preempted.
    let mut longest = traces.clone();
    longest.sort_by(|a, b| (b.finish - b.arrival).total_cmp(&(a.finish - a.arrival)));
    let preempted = longest
        .iter()
        .take(40)
        .map(|request| check_followed("distserve, small KV", &s, request))
        .find(|followed| followed.preemptions > 0)
        .expect("one of the longest-lived requests was preempted");
    let kinds: Vec<PhaseKind> = preempted.phases.iter().map(|p| p.kind).collect();
    let waits = kinds.iter().filter(|&&k| k == PhaseKind::Waiting).count();
    assert!(
        waits as u32 > preempted.preemptions,
        "waited again after each preemption: {kinds:?}"
    );
    // Each preemption costs one more prefill: a recompute of what it had, or its prompt again.
    let prefills = kinds
        .iter()
        .filter(|&&k| matches!(k, PhaseKind::Prefill | PhaseKind::Recompute))
        .count();
    assert_eq!(prefills as u32, 1 + preempted.preemptions, "{kinds:?}");
}

#[test]
fn the_trace_is_bounded_whatever_the_window() {
    let mut s = course(0.99);
    s.customers = 40_000;
    let trace = trace_batch(&s, 11, &window(0.0, 1e9)).expect("traced");
    assert!(
        trace.truncated,
        "a 40 000-request run has more iterations than a trace keeps"
    );
    assert!(trace.iterations.len() <= MAX_ITERATIONS);
    assert!(trace.cells.len() <= MAX_CELLS);
    assert!(
        trace.until < 1e9,
        "the window closes where the record stopped"
    );
    let mut wide = scenario(
        Scenario::course_preset(),
        0.99,
        ScenarioSettings {
            max_num_seqs: Some(1024),
            max_num_batched_tokens: Some(65_536),
            ..Default::default()
        },
    );
    wide.customers = 40_000;
    let trace = trace_batch(&wide, 11, &window(0.0, 1e9)).expect("traced");
    assert!(trace.cells.len() <= MAX_CELLS && trace.iterations.len() <= MAX_ITERATIONS);
}

#[test]
fn tracing_refuses_what_has_no_batch() {
    let error = trace_batch(&Scenario::textbook_preset(), 11, &window(0.0, 1.0)).unwrap_err();
    assert_eq!(error.field, "service");
    let mut spec = window(0.0, 1.0);
    spec.replica = 1;
    let error = trace_batch(&course(0.9), 11, &spec).unwrap_err();
    assert_eq!(error.field, "service.llm.replicas");
}
