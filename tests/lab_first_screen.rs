//! The knee lab's first screen as `lab-worker` draws it before the page's wasm runs (src/lab_view.rs): the lesson's
//! settings and the address's, a rough pass first, the slider's redraws, and the messages as src/boot.js reads them.

use goodput::charts::ChartTheme;
use goodput::lab_protocol::{FromWorker, ToWorker};
use goodput::lab_view::EarlyLab;

/// The lesson's knee lab settings as its island carries them.
const LESSON: &str =
    r#"{"load":0.85,"loop":"open","preset":"course","slo_tpot_ms":40.0,"slo_ttft_ms":500.0}"#;

fn run_to_the_end(query: &str) -> EarlyLab {
    let mut lab = EarlyLab::start(LESSON, query).expect("the lesson's lab starts");
    let mut passes = 0;
    while !lab.converged() {
        lab.run_pass();
        passes += 1;
    }
    assert!(
        passes > 1,
        "the sweep converged in one pass: nothing is drawn before it"
    );
    lab
}

fn drawn(lab: &EarlyLab, load: Option<u32>, query: &str) -> (u32, String, bool, [String; 2]) {
    match lab
        .draw(load, query, (720, 360), ChartTheme::Light, 7)
        .unwrap()
    {
        FromWorker::Drawn {
            request,
            load_percent,
            query,
            converged,
            charts,
        } => {
            assert_eq!(request, 7);
            for chart in &charts {
                assert!(chart.svg.starts_with("<svg"), "{}", &chart.svg[..40]);
                assert!(chart
                    .table_html
                    .starts_with("<table><thead><tr><th scope=\"col\">"));
            }
            (
                load_percent,
                query,
                converged,
                charts.map(|chart| chart.summary),
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_rough_pass_is_drawn_first_and_the_slider_only_redraws() {
    let mut lab = EarlyLab::start(LESSON, "").unwrap();
    assert!(!lab.has_run());
    lab.run_pass();
    let (load, query, converged, _) = drawn(&lab, None, "");
    assert_eq!((load, query.as_str(), converged), (85, "", false));
    let lab = run_to_the_end("");
    let (load, query, converged, [latency, _]) = drawn(&lab, Some(97), "?present=0");
    assert_eq!(load, 97);
    assert!(converged);
    // As the full lab writes it: the load beside the address's other parameters.
    assert_eq!(query, "present=0&load=0.97");
    assert!(latency.starts_with("At 97% load p99 TTFT is"), "{latency}");
    // Out of range, as the slider cannot send but a message can: clamped as the full lab clamps.
    assert_eq!(drawn(&lab, Some(150), "").0, 100);
}

#[test]
fn the_address_overrides_the_lesson_and_the_learners_own_server_is_left_to_the_full_lab() {
    let lab = run_to_the_end("load=0.93&loop=closed");
    let (load, query, _, _) = drawn(&lab, None, "load=0.93&loop=closed");
    assert_eq!(load, 93);
    assert!(query.contains("loop=closed"), "{query}");
    // A slider move keeps the sweep run so far; other settings start another.
    let lab = lab.or_start(LESSON, "load=0.97&loop=closed").unwrap();
    assert!(lab.converged());
    let lab = lab.or_start(LESSON, "").unwrap();
    assert!(!lab.has_run());
    let refused = EarlyLab::start(LESSON, "preset=yours").err().unwrap();
    assert!(refused.contains("own server"), "{refused}");
    assert!(EarlyLab::start("{not json", "").is_err());
}

#[test]
fn every_request_reads_back_and_a_bad_one_is_refused_by_its_field() {
    let request = ToWorker::Draw {
        settings: LESSON.to_owned(),
        query: "?load=0.9".to_owned(),
        load_percent: Some(90),
        width: 360,
        height: 330,
        theme: ChartTheme::HighContrast,
        request: 3,
    };
    assert_eq!(ToWorker::decode(&request.encode()).unwrap(), request);
    let unset = ToWorker::Draw {
        settings: LESSON.to_owned(),
        query: String::new(),
        load_percent: None,
        width: 720,
        height: 360,
        theme: ChartTheme::Light,
        request: 1,
    };
    assert_eq!(ToWorker::decode(&unset.encode()).unwrap(), unset);
    // What src/boot.js posts: strings only, the load empty until the slider moves.
    let from_the_page: Vec<String> = ["draw", LESSON, "", "", "720", "360", "dark", "1"]
        .map(str::to_owned)
        .to_vec();
    assert!(ToWorker::decode(&from_the_page).is_ok());
    let with = |index: usize, value: &str| {
        let mut parts = from_the_page.clone();
        parts[index] = value.to_owned();
        ToWorker::decode(&parts).unwrap_err().to_string()
    };
    assert_eq!(
        with(3, "ninety"),
        "a \"draw\" message's load is \"ninety\", not a whole percentage"
    );
    assert_eq!(
        with(6, "sepia"),
        "a \"draw\" message's theme is \"sepia\", which it does not know"
    );
    assert!(with(0, "paint").contains("no request the lab worker knows"));
    assert!(ToWorker::decode(&from_the_page[..5]).is_err());
}

#[test]
fn an_answer_is_laid_out_as_the_page_reads_it() {
    let lab = run_to_the_end("");
    let parts = lab
        .draw(Some(90), "", (360, 330), ChartTheme::Dark, 2)
        .unwrap()
        .encode();
    // src/boot.js reads [kind, request, load, query, state, then svg, summary, table per chart].
    assert_eq!(parts.len(), 11);
    assert_eq!(&parts[..5], ["drawn", "2", "90", "load=0.90", "converged"]);
    for chart in 0..2 {
        assert!(parts[5 + 3 * chart].starts_with("<svg"));
        assert!(parts[6 + 3 * chart].starts_with("At 90% load"));
        assert!(parts[7 + 3 * chart].starts_with("<table>"));
    }
    assert_eq!(
        FromWorker::Refused("why".into()).encode(),
        ["refused", "why"]
    );
}

#[test]
fn the_slider_writes_only_the_load_so_a_value_the_full_lab_clamps_keeps_its_note() {
    let query = "loop=closed&replicas=999&present=1";
    let lab = run_to_the_end(query);
    let (_, written, _, _) = drawn(&lab, Some(95), query);
    assert_eq!(written, "loop=closed&replicas=999&present=1&load=0.95");
    // Back at the lesson's load, the address names none.
    let (_, written, _, _) = drawn(&lab, Some(85), &written);
    assert_eq!(written, query);
}
