//! The Little's Law sizer, the autoscaling rules derived from it, and the SLO table.

use goodput::cluster::autoscale::{
    keda_scaled_object, plan, prometheus_alert_rule, Workload, SLO_SUGGESTIONS,
};
use goodput::cluster::sizing::{
    parse_field, size, size_from_text, suggest_from_scrape, SizingField, SizingInput,
};
use goodput::lesson::{SettingValue, WidgetEmbed, WidgetName};
use proptest::prelude::*;

fn course_case() -> SizingInput {
    SizingInput {
        max_num_seqs: 64.0,
        latency_seconds: 8.0,
        peak_qps: 30.0,
        headroom: 0.8,
    }
}

#[test]
fn the_hand_computed_case_gives_five_replicas_and_240_in_flight() {
    // cap 64, latency 8 s → 64 ÷ 8 = 8 req/s per replica; at 80% → 6.4 req/s; ceil(30 ÷ 6.4) = ceil(4.6875) = 5;
    // in flight at peak = 30 × 8 = 240, in 5 × 64 = 320 slots; utilisation 30 ÷ (5 × 8) = 75%.
    let sizing = size(&course_case()).unwrap();
    assert_eq!(sizing.per_replica_max_qps, 8.0);
    assert!((sizing.per_replica_target_qps - 6.4).abs() < 1e-12);
    assert_eq!(sizing.replicas, 5);
    assert_eq!(sizing.in_flight_at_peak, 240.0);
    assert!((sizing.utilisation_at_peak - 0.75).abs() < 1e-12);
    let text = sizing.arithmetic.join("\n");
    for line in [
        "Per-replica max QPS = cap ÷ latency = 64 ÷ 8.0 s = 8.0 requests/s",
        "At 80% headroom each replica carries 8.0 × 0.80 = 6.4 requests/s",
        "Replicas = ceil(peak ÷ per-replica target) = ceil(30 ÷ 6.4) = ceil(4.7) = 5",
        "In flight at peak = peak × latency = 30 × 8.0 s = 240 requests, in 320 slots (5 replicas × 64)",
        "At peak the fleet runs at 75% of its maximum",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

#[test]
fn an_exact_multiple_does_not_round_up_to_an_extra_replica() {
    // 64 ÷ 8 × 0.75 = 6 req/s per replica; 30 ÷ 6 = 5 exactly.
    let sizing = size(&SizingInput {
        headroom: 0.75,
        ..course_case()
    })
    .unwrap();
    assert_eq!(sizing.replicas, 5);
    let tiny = size(&SizingInput {
        peak_qps: 0.01,
        ..course_case()
    })
    .unwrap();
    assert_eq!(tiny.replicas, 1, "any demand needs at least one replica");
}

#[test]
fn invalid_inputs_name_their_field_with_a_message_fit_to_show_beside_it() {
    let cases: &[(SizingInput, SizingField, &str)] = &[
        (
            SizingInput {
                max_num_seqs: 0.0,
                ..course_case()
            },
            SizingField::MaxNumSeqs,
            "must be more than 0",
        ),
        (
            SizingInput {
                max_num_seqs: 64.5,
                ..course_case()
            },
            SizingField::MaxNumSeqs,
            "whole number",
        ),
        (
            SizingInput {
                max_num_seqs: 1e9,
                ..course_case()
            },
            SizingField::MaxNumSeqs,
            "implausibly large",
        ),
        (
            SizingInput {
                latency_seconds: -1.0,
                ..course_case()
            },
            SizingField::LatencySeconds,
            "must be more than 0",
        ),
        (
            SizingInput {
                latency_seconds: f64::NAN,
                ..course_case()
            },
            SizingField::LatencySeconds,
            "enter the mean",
        ),
        (
            SizingInput {
                latency_seconds: 1e7,
                ..course_case()
            },
            SizingField::LatencySeconds,
            "at most 3600",
        ),
        (
            SizingInput {
                peak_qps: 0.0,
                ..course_case()
            },
            SizingField::PeakQps,
            "must be more than 0",
        ),
        (
            SizingInput {
                peak_qps: f64::INFINITY,
                ..course_case()
            },
            SizingField::PeakQps,
            "implausibly large",
        ),
        (
            SizingInput {
                headroom: 80.0,
                ..course_case()
            },
            SizingField::Headroom,
            "for 80% enter 0.8",
        ),
        (
            SizingInput {
                headroom: 0.01,
                ..course_case()
            },
            SizingField::Headroom,
            "at least 0.05",
        ),
        (
            SizingInput {
                headroom: 0.0,
                ..course_case()
            },
            SizingField::Headroom,
            "must be more than 0",
        ),
        (
            SizingInput {
                headroom: 1000.0,
                ..course_case()
            },
            SizingField::Headroom,
            "implausibly large",
        ),
    ];
    for (input, field, fragment) in cases {
        let errors = size(input).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, *field);
        assert!(
            errors[0].message.contains(fragment),
            "{:?} should contain {fragment:?}",
            errors[0].message
        );
    }
    let all_wrong = SizingInput {
        max_num_seqs: -1.0,
        latency_seconds: 0.0,
        peak_qps: f64::NAN,
        headroom: -0.5,
    };
    let fields: Vec<SizingField> = size(&all_wrong)
        .unwrap_err()
        .iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(
        fields,
        [
            SizingField::MaxNumSeqs,
            SizingField::LatencySeconds,
            SizingField::PeakQps,
            SizingField::Headroom
        ]
    );
}

#[test]
fn text_fields_reject_empty_and_non_numbers_by_name() {
    assert_eq!(parse_field(SizingField::PeakQps, " 30 ").unwrap(), 30.0);
    let empty = parse_field(SizingField::LatencySeconds, "  ").unwrap_err();
    assert_eq!(empty.field, SizingField::LatencySeconds);
    assert_eq!(empty.message, "enter a number");
    let words = parse_field(SizingField::MaxNumSeqs, "lots").unwrap_err();
    assert_eq!(words.message, "\"lots\" is not a number");
    assert!(words
        .to_string()
        .starts_with("concurrency cap (--max-num-seqs): "));
    assert!(parse_field(SizingField::Headroom, "NaN").is_err());
    assert!(parse_field(SizingField::Headroom, "inf").is_err());
}

#[test]
fn the_scaling_plan_derives_threshold_and_bounds_from_the_sizing() {
    let plan = plan(&size(&course_case()).unwrap(), 2.0);
    // Threshold: ceil(64 × (1 − 0.8)) = ceil(12.8) = 13 waiting per replica.
    assert_eq!(plan.waiting_threshold, 13);
    assert_eq!(plan.min_replicas, 5);
    // Twice the peak: ceil(60 ÷ 6.4) = ceil(9.375) = 10.
    assert_eq!(plan.max_replicas, 10);
    assert!(plan.provenance[0]
        .starts_with("threshold 13 waiting per replica = ceil(cap 64 × (1 − headroom 0.80))"));
}

#[test]
fn the_alert_rule_and_keda_trigger_are_ready_to_paste_and_say_where_their_numbers_came_from() {
    let plan = plan(&size(&course_case()).unwrap(), 2.0);
    let alert = prometheus_alert_rule(&plan, "org/model \"v2\"");
    assert!(alert.starts_with("# From the Little's Law sizer: cap 64, latency 8.0 s, peak 30 requests/s, headroom 0.80.\n"));
    assert!(alert
        .contains("groups:\n  - name: vllm-knee\n    rules:\n      - alert: VllmQueueGrowing\n"));
    // PromQL escapes the quote in the label; YAML escapes the backslash and both quotes again.
    assert!(
        alert.contains(
            r#"expr: "avg(vllm:num_requests_waiting{model_name=\"org/model \\\"v2\\\"\"}) > 13""#
        ),
        "{alert}"
    );
    let keda = keda_scaled_object(&plan, "m");
    for line in [
        "kind: ScaledObject",
        "  minReplicaCount: 5\n",
        "  maxReplicaCount: 10\n",
        "        query: \"sum(vllm:num_requests_waiting{model_name=\\\"m\\\"})\"\n",
        "        threshold: \"13\"\n",
        "# minReplicas 5 = ceil(peak 30 ÷ (8.0 requests/s per replica × 0.80))",
    ] {
        assert!(keda.contains(line), "missing {line:?} in\n{keda}");
    }
}

/// The string at the first `key` in `yaml`'s document, read by a YAML parser: the whole document must parse.
fn quoted_value(yaml: &str, key: &str) -> String {
    let document: serde_yaml::Value =
        serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("not valid YAML ({e}):\n{yaml}"));
    string_at(&document, key).unwrap_or_else(|| panic!("no string {key} in {yaml}"))
}

fn string_at(value: &serde_yaml::Value, key: &str) -> Option<String> {
    match value {
        serde_yaml::Value::Mapping(map) => map.iter().find_map(|(k, v)| {
            if k.as_str() == Some(key) {
                v.as_str().map(str::to_owned)
            } else {
                string_at(v, key)
            }
        }),
        serde_yaml::Value::Sequence(items) => items.iter().find_map(|v| string_at(v, key)),
        _ => None,
    }
}

#[test]
fn model_names_with_newlines_tabs_and_controls_stay_one_line_of_valid_yaml() {
    let plan = plan(&size(&course_case()).unwrap(), 2.0);
    let name =
        "org/model \"v2\"\nsecond line\ttab \\ back\u{7f}del\u{85}nel\u{2028}ls\u{feff}bom é 🚀";
    let alert = prometheus_alert_rule(&plan, name);
    let keda = keda_scaled_object(&plan, name);
    for yaml in [&alert, &keda] {
        // No raw control character, line separator or byte-order mark anywhere: a YAML parser would refuse them or
        // break the line.
        for c in yaml.chars() {
            let allowed =
                c == '\n' || !(c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}'));
            assert!(allowed, "raw {c:?} in\n{yaml}");
        }
    }
    assert_eq!(
        quoted_value(&alert, "summary"),
        format!("vLLM {name}: queue past the knee")
    );
    // The PromQL selector escapes the label value first (\", \\, \n); the YAML scalar holds that text exactly.
    let selector = format!(
        "vllm:num_requests_waiting{{model_name=\"{}\"}}",
        goodput::cluster::metrics::escape_label_value(name)
    );
    assert_eq!(
        quoted_value(&alert, "expr"),
        format!("avg({selector}) > 13")
    );
    assert_eq!(quoted_value(&keda, "query"), format!("sum({selector})"));
    assert!(
        alert.contains("\\u007F") && alert.contains("\\u2028") && alert.contains("\\uFEFF"),
        "{alert}"
    );
}

#[test]
fn slo_suggestions_loosen_from_code_completion_to_chat_to_rag_to_batch() {
    let [chat, rag, code, agent, batch] = SLO_SUGGESTIONS;
    assert_eq!(
        [
            chat.workload,
            rag.workload,
            code.workload,
            agent.workload,
            batch.workload
        ],
        [
            Workload::Chat,
            Workload::Rag,
            Workload::CodeCompletion,
            Workload::Agent,
            Workload::BatchSummarisation
        ]
    );
    assert!(code.slo.ttft_p99 < chat.slo.ttft_p99 && chat.slo.ttft_p99 < agent.slo.ttft_p99);
    assert!(agent.slo.ttft_p99 < rag.slo.ttft_p99 && rag.slo.ttft_p99 < batch.slo.ttft_p99);
    assert!(code.slo.tpot_p95 < agent.slo.tpot_p95 && agent.slo.tpot_p95 < chat.slo.tpot_p95);
    assert!(chat.slo.tpot_p95 <= rag.slo.tpot_p95 && rag.slo.tpot_p95 < batch.slo.tpot_p95);
    for suggestion in SLO_SUGGESTIONS {
        assert!(
            suggestion.reasoning.len() > 100,
            "{} needs its reasoning",
            suggestion.name
        );
    }
}

#[test]
fn the_pages_text_fields_size_the_fleet_or_name_each_field_at_fault() {
    let sizing = size_from_text(" 64", "8", "30 ", "0.8").unwrap();
    assert_eq!(
        (
            sizing.per_replica_max_qps,
            sizing.replicas,
            sizing.in_flight_at_peak
        ),
        (8.0, 5, 240.0)
    );
    let errors = size_from_text("abc", "0", "", "80").unwrap_err();
    let found: Vec<(SizingField, &str)> = errors
        .iter()
        .map(|e| (e.field, e.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (SizingField::MaxNumSeqs, "\"abc\" is not a number"),
            (
                SizingField::LatencySeconds,
                "must be more than 0; enter the mean end-to-end latency in seconds, e.g. 8"
            ),
            (SizingField::PeakQps, "enter a number"),
            (SizingField::Headroom, "a fraction of 1: for 80% enter 0.8"),
        ]
    );
}

#[test]
fn a_scrape_with_a_queue_reads_the_cap_off_the_running_count() {
    // 64 running + 36 waiting = 100 in flight; the cap is 64, 80% of it is 51.2; ceil(100 ÷ 51.2) = ceil(1.95) = 2.
    let suggestion = suggest_from_scrape(64.0, 36.0, 0.8).unwrap();
    assert_eq!(suggestion.in_flight, 100.0);
    assert_eq!(suggestion.observed_cap, Some(64.0));
    assert_eq!(suggestion.replicas, Some(2));
    assert_eq!(suggestion.replicas_at_least, Some(2));
    assert_eq!(suggestion.cap_for_one_replica, 125);
    // The past-the-knee sample: 64 + 1789 = 1853 in flight; ceil(1853 ÷ 51.2) = 37 absorbs it all, 2 is the floor.
    let backlog = suggest_from_scrape(64.0, 1789.0, 0.8).unwrap();
    assert_eq!(
        (backlog.replicas_at_least, backlog.replicas),
        (Some(2), Some(37))
    );
    assert!(
        backlog.arithmetic[4].contains("at least ceil(1 ÷ 0.80) = 2"),
        "{:?}",
        backlog.arithmetic
    );
    let text = suggestion.arithmetic.join("\n");
    assert!(text.contains("running 64 + waiting 36 = 100"), "{text}");
    assert!(text.contains("ceil(100 ÷ 51) = 2"), "{text}");
    assert!(text.contains("overstates the steady need"), "{text}");
}

#[test]
fn a_scrape_without_a_queue_says_which_cap_holds_it_on_one_replica() {
    // 19 running + 1 waiting (noise) = 20; 20 ÷ 0.8 = 25 slots.
    let suggestion = suggest_from_scrape(19.0, 1.0, 0.8).unwrap();
    assert_eq!(suggestion.observed_cap, None);
    assert_eq!(suggestion.replicas, None);
    assert_eq!(suggestion.replicas_at_least, None);
    assert_eq!(suggestion.cap_for_one_replica, 25);
    assert!(
        suggestion.arithmetic[1].contains("at least ceil(20 ÷ 0.80) = 25"),
        "{:?}",
        suggestion.arithmetic
    );
    // Waiting while nothing runs: no sizing from this scrape.
    let stalled = suggest_from_scrape(0.0, 12.0, 0.8).unwrap();
    assert_eq!(stalled.replicas, None);
    assert!(stalled.arithmetic[1].contains("stalled"));
}

#[test]
fn a_scrape_suggestion_refuses_impossible_gauges_and_headroom() {
    for (running, waiting, headroom) in [
        (f64::NAN, 0.0, 0.8),
        (-1.0, 0.0, 0.8),
        (1.0, f64::INFINITY, 0.8),
        (1.0, 0.0, 0.0),
        (1.0, 0.0, 1.5),
    ] {
        assert_eq!(suggest_from_scrape(running, waiting, headroom), None);
    }
}

#[test]
fn widget_number_settings_fall_back_to_the_default_with_a_note() {
    let mut widget = WidgetEmbed {
        id: None,
        name: WidgetName::LittlesLawSizer,
        caption: None,
        settings: Default::default(),
    };
    widget
        .settings
        .insert("max_num_seqs".into(), SettingValue::Number(32.0));
    widget
        .settings
        .insert("headroom".into(), SettingValue::Bool(true));
    assert_eq!(widget.number_setting("max_num_seqs", 64.0), (32.0, None));
    assert_eq!(widget.number_setting("latency_s", 8.0), (8.0, None));
    let (value, note) = widget.number_setting("headroom", 0.8);
    assert_eq!(value, 0.8);
    assert_eq!(
        note.as_deref(),
        Some("The lesson sets headroom = true, which is not a number; using 0.8 instead.")
    );
}

proptest! {
    #[test]
    fn any_input_gives_a_finite_sizing_or_named_errors(
        cap in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -10.0..1e6f64, 1.0..512.0f64],
        latency in prop_oneof![Just(f64::NAN), -1.0..1e4f64],
        peak in prop_oneof![Just(0.0), -1.0..1e7f64],
        headroom in prop_oneof![Just(f64::NEG_INFINITY), -1.0..2.0f64, 1.0..200.0f64],
    ) {
        let input = SizingInput { max_num_seqs: cap.round(), latency_seconds: latency, peak_qps: peak, headroom };
        match size(&input) {
            Ok(sizing) => {
                prop_assert!(sizing.per_replica_max_qps.is_finite() && sizing.per_replica_max_qps > 0.0);
                prop_assert!(sizing.replicas >= 1);
                prop_assert!(sizing.in_flight_at_peak.is_finite());
                prop_assert!(sizing.utilisation_at_peak <= input.headroom + 1e-9);
                prop_assert!(!sizing.arithmetic.join(" ").contains("NaN"));
                let plan = plan(&sizing, 2.0);
                prop_assert!(plan.max_replicas >= plan.min_replicas && plan.waiting_threshold >= 1);
            }
            Err(errors) => {
                prop_assert!(!errors.is_empty() && errors.iter().all(|e| !e.message.is_empty()));
            }
        }
    }
}
