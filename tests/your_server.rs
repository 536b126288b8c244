//! "Your server" in the knee lab, without the page: what the calibration worker makes of a learner's files and
//! flags, the short form the page keeps the server in, and the lab running it — its load range reaching down to the
//! measured runs, the runs on the charts at their load with the model's error, a link naming a server this browser
//! lacks. Also keeps the browser test's fixtures the model's own results.

use goodput::charts::{latency_table, throughput_table};
use goodput::lab::{measured_runs, scenario_for, Figures, LabSettings, Preset};
use goodput::model::your_server::{HeldServer, YourServer};
use goodput::model::{run, Scenario, ServiceKind};
use goodput::server_protocol::FlagFields;
use goodput_calibrate::handoff::{decode, encode};
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::page::{
    banded_for_page, calibrate_for_page, flags_from_fields, pasted_files,
};
use goodput_calibrate::{calibrate, ServerFlags};

#[path = "support/synthetic_server.rs"]
mod synthetic_server;
use synthetic_server::{synthetic_result, truth};

/// The fixtures the browser test loads: summary results, as `vllm bench serve --save-result` writes them, of the
/// synthetic server at two light rates.
const FIXTURES: [(&str, f64); 2] = [("light-0.3rps.json", 0.3), ("light-0.8rps.json", 0.8)];
const FIXTURE_REQUESTS: u64 = 400;

fn fixture_path(name: &str) -> String {
    format!(
        "{}/tests/fixtures/your-server/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn light_results() -> Vec<InputFile> {
    FIXTURES
        .iter()
        .map(|&(name, rate)| InputFile {
            name: name.to_owned(),
            text: synthetic_result(rate, FIXTURE_REQUESTS, 7, false),
        })
        .collect()
}

/// The page's flag fields as a learner fills them: `[--max-num-seqs, --max-num-batched-tokens, KV cache tokens,
/// replicas]`, chunked prefill on or off, the engine V1.
fn fields(typed: [&str; 4], chunked_prefill: bool) -> FlagFields {
    let [seqs, budget, kv, replicas] = typed.map(str::to_owned);
    FlagFields {
        max_num_seqs: seqs,
        max_num_batched_tokens: budget,
        chunked_prefill,
        kv_cache_tokens: kv,
        replicas,
        ..FlagFields::default()
    }
}

/// The synthetic server's flags, as a learner would type them.
fn flags() -> ServerFlags {
    flags_from_fields(&fields(["64", "4096", "", ""], true)).unwrap()
}

#[test]
fn the_browser_tests_fixtures_are_the_models_own_results() {
    for file in light_results() {
        let path = fixture_path(&file.name);
        if std::env::var_os("GOODPUT_BLESS").is_some() {
            std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).unwrap();
            std::fs::write(&path, &file.text).unwrap();
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{path}: {e} (GOODPUT_BLESS=1 cargo test --test your_server writes it)")
        });
        assert_eq!(
            kept, file.text,
            "{path} is stale: GOODPUT_BLESS=1 cargo test --test your_server"
        );
    }
}

#[test]
fn a_calibrated_server_comes_back_from_the_pages_storage_as_it_was() {
    let files = light_results();
    let calibration = calibrate(&files, &flags()).unwrap();
    let page = calibrate_for_page(&files, &flags()).unwrap();
    let kept = decode(&page.handoff).unwrap();
    assert_eq!(kept, calibration.your_server());
    assert_eq!(page.fit.as_ref(), Some(&calibration));
    // Then the worker works out how sure the fit is, and sends the same server with its band and the report with
    // its ranges.
    let banded = banded_for_page(calibration.clone()).expect("two light results leave residuals");
    let kept = decode(&banded.handoff).unwrap();
    let (with_band, server) = calibration.clone().with_band();
    assert_eq!(kept, server);
    assert_eq!(kept.scenario, calibration.scenario);
    let band = kept.band.as_ref().unwrap();
    let capacity = band.capacity;
    assert!(
        capacity.low <= capacity.central && capacity.central <= capacity.high,
        "{capacity:?}"
    );
    assert!(
        band.extrapolates(),
        "two light runs, the knee beyond them: {band:?}"
    );
    assert_eq!(band.points.len(), 9);
    for point in &band.points {
        assert!(
            point.p50.0 <= point.p50.1 && point.p99.0 <= point.p99.1,
            "{point:?}"
        );
        assert!(point.p50.0 > 0.0 && point.p50.1 <= point.p99.1, "{point:?}");
    }
    assert!(band.points.windows(2).all(|w| w[0].rate < w[1].rate));
    assert_eq!(
        with_band.uncertainty.as_ref().map(|u| u.capacity),
        Some(capacity)
    );
    assert!(
        banded.report.contains("every input is light load"),
        "{}",
        banded.report
    );
    assert!(banded.report.contains("knee"), "{}", banded.report);
    assert_eq!(kept.measured.len(), 2, "both results have a rate");
    assert_eq!(kept.measured[0].rate, 0.3);
    // The download is the same scenario, in the file format `run --scenario` reads.
    let downloaded: Scenario = serde_json::from_str(&page.scenario_json).unwrap();
    assert_eq!(downloaded, calibration.scenario);
    assert!(page.report.contains("light-0.8rps.json"), "{}", page.report);
    // Every length distribution, an optional compute term and V0's scheduler survive the short form.
    let mut other = truth();
    if let ServiceKind::Llm(fleet) = &mut other.service {
        fleet.max_num_queued_reqs = Some(96);
        fleet.chunked_prefill = false;
        fleet.prefill_first = true;
        fleet.output_tokens = goodput::model::LengthDist::Geometric {
            mean: 180.0,
            max: Some(900),
        };
    }
    let server = YourServer {
        scenario: other,
        measured: Vec::new(),
        capacity_ratio: 0.625,
        band: None,
    };
    assert_eq!(decode(&encode(&server).unwrap()).unwrap(), server);
    // A server kept before the scheduler was (its last line absent) ran V1's.
    let kept = encode(&server).unwrap();
    let before = kept.trim_end().rsplit_once('\n').unwrap().0;
    let ServiceKind::Llm(fleet) = decode(before).unwrap().scenario.service else {
        unreachable!("an LLM fleet")
    };
    assert!(!fleet.prefill_first);
}

#[test]
fn a_kept_server_that_cannot_be_read_is_refused_naming_the_line() {
    let good = encode(&YourServer {
        scenario: truth(),
        measured: Vec::new(),
        capacity_ratio: 1.0,
        band: None,
    })
    .unwrap();
    let header_and_fleet = "goodput your-server 1\n1 64 4096 1 1 0.004";
    assert!(good.starts_with(header_and_fleet), "{good}");
    let cases = [
        ("", "not a calibrated server"),
        ("{\"progress\": 1}", "not a calibrated server"),
        (
            &good.replacen("1 64 4096", "one 64 4096", 1),
            "number 1: \"one\" is not a number",
        ),
        (
            &good.replacen("1 64 4096", "1.5 64 4096", 1),
            "number 1: 1.5 is not a whole number",
        ),
        (&good[..good.len() / 2], "ends after"),
        (
            &good.replacen("\n1 2 200 3000", "\n7 2 200 3000", 1),
            "no length distribution is 7 with 2 values",
        ),
        (&format!("{good} 0.5"), "more numbers than a server holds"),
        (
            &format!("{}2\n0\n", good.strip_suffix("0\n0\n").unwrap()),
            "is not 0 (no band) or 1",
        ),
        (
            &format!("{}1 0.5\n", good.strip_suffix("0\n0\n").unwrap()),
            "ends after",
        ),
        (
            &format!("{}0\n2\n", good.strip_suffix("0\n0\n").unwrap()),
            "is not 0 (V1's scheduler) or 1 (V0's)",
        ),
        // Read, then refused as any scenario file would be.
        (&good.replacen("1 64 4096", "0 64 4096", 1), "replicas"),
    ];
    for (text, expected) in cases {
        let error = decode(text).unwrap_err();
        assert!(
            error.contains(expected),
            "{text:?} gave {error:?}, wanted {expected:?}"
        );
        assert_eq!(error.lines().count(), 1);
    }
}

#[test]
fn the_pages_fields_and_pasted_text_become_the_calibrations_inputs() {
    let blank = flags_from_fields(&fields([" ", "", "", ""], false)).unwrap();
    assert_eq!(
        blank,
        ServerFlags {
            chunked_prefill: Some(false),
            v0_engine: Some(false),
            ..ServerFlags::default()
        }
    );
    assert_eq!(
        flags_from_fields(&fields(["128", "", "90000", "2"], true))
            .unwrap()
            .kv_cache_tokens,
        Some(90_000)
    );
    let v0 = FlagFields {
        v0_engine: true,
        ..fields(["", "", "", ""], false)
    };
    assert_eq!(flags_from_fields(&v0).unwrap().v0_engine, Some(true));
    for (fields, name) in [
        (["abc", "", "", ""], "--max-num-seqs"),
        (["", "0", "", ""], "--max-num-batched-tokens"),
        (["", "", "-5", ""], "KV cache tokens"),
        (["", "", "", "1.5"], "replicas"),
    ] {
        let error = flags_from_fields(&self::fields(fields, true)).unwrap_err();
        assert!(error.starts_with(name), "{error}");
    }
    let pasted = pasted_files("# a\nx 1\n---\n# b\ny 2\n --- \n\n");
    let names: Vec<_> = pasted.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["pasted text 1", "pasted text 2"]);
    assert_eq!(pasted[1].text, "# b\ny 2\n");
    assert_eq!(pasted_files("{\"a\": 1}")[0].name, "pasted text");
    assert!(pasted_files(" \n").is_empty());
}

#[test]
fn a_scenario_file_is_run_as_it_is_when_given_alone() {
    let json = serde_json::to_string(&truth()).unwrap();
    let file = |name: &str, text: &str| InputFile {
        name: name.to_owned(),
        text: text.to_owned(),
    };
    let page = calibrate_for_page(&[file("mine.json", &json)], &flags()).unwrap();
    assert_eq!(decode(&page.handoff).unwrap().scenario, truth());
    assert!(page.report.contains("nothing to fit"));
    let with_result = [file("mine.json", &json), light_results().remove(0)];
    assert!(calibrate_for_page(&with_result, &flags())
        .unwrap_err()
        .contains("give it alone"));
    let textbook = serde_json::to_string(&Scenario::textbook_preset()).unwrap();
    assert!(calibrate_for_page(&[file("mmc.json", &textbook)], &flags())
        .unwrap_err()
        .starts_with("mmc.json: a textbook queue"));
}

#[test]
fn a_link_naming_your_server_in_a_browser_without_one_shows_the_course_box_and_says_so() {
    let (lab, _) = LabSettings::default().with_query("preset=yours&load=0.9");
    assert_eq!(lab.preset, Preset::Yours);
    let (reconciled, notes) = lab.reconciled();
    assert_eq!(reconciled.preset, Preset::Course);
    assert_eq!(reconciled.load_percent, 90);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].message.contains("no calibrated server"),
        "{}",
        notes[0].message
    );
    assert!(
        !notes[0].message.contains("service."),
        "no model paths: {}",
        notes[0].message
    );
}

#[test]
fn the_lab_runs_your_server_down_to_its_measured_runs_and_draws_them_with_the_models_error() {
    let calibration = calibrate(&light_results(), &flags()).unwrap();
    let server = HeldServer::new(calibration.your_server());
    let lab = LabSettings::default().for_your_server(&server);
    let (lab, notes) = lab.reconciled();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        (lab.preset, lab.max_num_seqs, lab.replicas),
        (Preset::Yours, 64, 1)
    );
    // The lab's scenario is the calibrated one (its cache in tokens: no GPU memory utilisation applies).
    let scenario = scenario_for(&lab, 0.9).unwrap();
    assert_eq!(scenario.service, {
        let mut fleet = calibration.scenario.service.clone();
        if let ServiceKind::Llm(f) = &mut fleet {
            f.max_num_batched_tokens = 4096;
        }
        fleet
    });

    // Its prefills are compute-bound, which the capacity formula leaves out: the simulation measures less, and the
    // lab's 100% is that measured capacity.
    assert!(server.capacity_ratio < 0.9, "{}", server.capacity_ratio);
    let capacity = scenario_for(&lab, 1.0).unwrap().arrival_rate().unwrap();
    let measured_capacity =
        goodput::model::measured_saturation_throughput(&scenario_for(&lab, 1.0).unwrap(), 1)
            .unwrap();
    assert!(
        (capacity / measured_capacity - 1.0).abs() < 0.02,
        "{capacity} against {measured_capacity}"
    );
    let runs = measured_runs(&lab);
    assert_eq!(runs.len(), 2);
    assert!((runs[1].0 - 0.8 / capacity).abs() < 1e-12);
    let (lo, hi) = lab.load_range_percent();
    assert!(
        f64::from(lo) / 100.0 <= runs[0].0 && lo >= 1,
        "{lo}% for {}",
        runs[0].0
    );
    assert_eq!(hi, 100);
    let points = lab.load_points();
    assert_eq!(points[0], f64::from(lo) / 100.0);
    assert!(points[1..].iter().all(|p| {
        let percent = (p * 100.0).round() as u32;
        percent >= 85 || percent.is_multiple_of(5)
    }));
    assert_eq!(points.iter().filter(|p| **p >= 0.85).count(), 16);

    // The measured runs sit on the charts at their load, each with the model's repeat of it.
    let figures = Figures::new(&lab, &[]);
    assert_eq!(figures.latency.measured.p50.len(), 2);
    assert_eq!(figures.latency.measured.p99.len(), 2);
    assert_eq!(figures.throughput.measured.len(), 2);
    let p50 = figures.latency.measured.p50[0];
    assert_eq!(p50.offered_load, runs[0].0);
    assert_eq!(p50.measured, server.measured[0].measured.ttft_p50);
    let table = latency_table(&figures.latency);
    let row = table.rows.last().unwrap();
    assert!(row[0].starts_with("your server at "), "{row:?}");
    assert!(
        row[1].contains(" measured, model ") && row[1].ends_with("%)"),
        "{row:?}"
    );
    assert!(throughput_table(&figures.throughput).rows.last().unwrap()[1].contains("measured"));

    // The lab's own steady state at each measured load is close to what the server measured: the curves pass by
    // the rings (light loads, where a finite benchmark and the steady state agree).
    for (load, run_measured) in &runs {
        let mut at = scenario_for(&lab, *load).unwrap();
        at.customers = 4_000;
        let steady = run(&at, 3).unwrap().steady.unwrap();
        let ttft = steady.ttft.unwrap().p50;
        let measured = run_measured.measured.ttft_p50;
        assert!(
            (ttft / measured - 1.0).abs() < 0.25,
            "at {load:.2} the lab's p50 TTFT {ttft} against the measured {measured}"
        );
    }

    // At 90% of the measured capacity the fleet keeps up: it serves what is offered and the queue has a steady
    // state (against the formula's capacity, 90% would be past saturation).
    let mut at = scenario_for(&lab, 0.9).unwrap();
    at.customers = 6_000;
    let steady = run(&at, 5).unwrap().steady.unwrap();
    let offered = 0.9 * capacity;
    assert!(
        (steady.throughput / offered - 1.0).abs() < 0.1,
        "{} of {offered} req/s",
        steady.throughput
    );

    // Another preset draws no rings and keeps the lesson's range.
    let course = LabSettings {
        preset: Preset::Course,
        ..lab.clone()
    };
    assert!(measured_runs(&course).is_empty());
    assert_eq!(course.load_range_percent(), (85, 100));
    // The same settings without the server: the lab is back on the course box, with a note.
    let (without, notes) = LabSettings {
        your_server: None,
        ..lab.clone()
    }
    .reconciled();
    assert_eq!((without.preset, notes.len()), (Preset::Course, 1));
    // The server never travels with the settings (URL, other windows): each window holds its own.
    let sent: LabSettings = serde_json::from_str(&serde_json::to_string(&lab).unwrap()).unwrap();
    assert_eq!(sent.your_server, None);
    assert_eq!(
        LabSettings {
            your_server: lab.your_server.clone(),
            ..sent
        },
        lab
    );
}

#[test]
fn the_lab_draws_your_servers_band_and_gives_its_capacity_and_knee_as_ranges() {
    let calibration = calibrate(&light_results(), &flags()).unwrap();
    let (_, server) = calibration.with_band();
    let band = server.band.clone().expect("a band from two light results");
    let lab = LabSettings::default()
        .for_your_server(&HeldServer::new(server))
        .reconciled()
        .0;
    let capacity = scenario_for(&lab, 1.0).unwrap().arrival_rate().unwrap();
    let figures = Figures::new(&lab, &[]);
    let fit = figures
        .latency
        .fit_band
        .as_ref()
        .expect("drawn on the TTFT chart");
    assert_eq!(fit.points.len(), band.points.len());
    assert!((fit.points[0].offered_load - band.points[0].rate / capacity).abs() < 1e-12);
    let knee = band
        .knee
        .expect("the model shows a knee below its capacity");
    assert_eq!(fit.knee, Some((knee.low / capacity, knee.high / capacity)));

    // In words: the capacity and the knee as ranges, and how far two light runs reach.
    let text = figures.your_server_ranges.as_deref().unwrap();
    assert!(
        text.contains(&format!(
            "capacity is {:.2}–{:.2} req/s",
            band.capacity.low, band.capacity.high
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "knee, where p99 TTFT doubles from light load, is at {:.2}–{:.2} req/s",
            knee.low, knee.high
        )),
        "{text}"
    );
    assert!(
        text.contains("Every run you gave is light load: the heaviest, 0.80 req/s"),
        "{text}"
    );
    assert!(text.contains("Up to about 1.60 req/s"), "{text}");
    // The chart's name and its table say the same.
    let summary = goodput::charts::latency_summary(&figures.latency);
    assert!(
        summary.contains("Its knee, where p99 TTFT doubles from light load, is at"),
        "{summary}"
    );
    // (The table's rows are the sweep's loads: three, not yet simulated.)
    let pending = Figures::new(&lab, &[(0.5, None), (0.7, None), (0.9, None)]);
    let table = latency_table(&pending.latency);
    let column = table
        .header
        .iter()
        .position(|h| h == "p99 TTFT, range of your fit")
        .unwrap();
    let ranged = table
        .rows
        .iter()
        .filter(|row| row[column].contains(" – "))
        .count();
    assert!(ranged >= 3, "{:?}", table.rows);

    // Another metric, or the lab's flags changed, is another picture: no band, and the text says why.
    let tpot = LabSettings {
        metric: goodput::charts::LatencyMetric::Tpot,
        ..lab.clone()
    };
    assert_eq!(Figures::new(&tpot, &[]).latency.fit_band, None);
    let doubled = LabSettings {
        replicas: 2,
        ..lab.clone()
    };
    let figures = Figures::new(&doubled, &[]);
    assert_eq!(figures.latency.fit_band, None);
    assert!(figures.your_server_ranges.unwrap().contains("not drawn"));
    // And the course box has neither.
    let course = LabSettings {
        preset: Preset::Course,
        ..lab
    };
    assert_eq!(Figures::new(&course, &[]).your_server_ranges, None);
}

#[test]
fn the_page_states_what_a_calibration_takes_and_pasted_text_is_split_no_further() {
    use goodput_calibrate::inputs::{check_sizes, limits, MAX_INPUT_FILES};
    assert_eq!(
        limits(),
        "At most 32 files (a pasted text counts as one), each at most 64 MB and 128 MB in all."
    );
    // A million pasted pieces: split no further than one past the limit, then refused by count.
    let text = "{\"a\": 1}\n---\n".repeat(1_000_000);
    let pasted = pasted_files(&text);
    assert_eq!(pasted.len(), MAX_INPUT_FILES + 1);
    let e = check_sizes(
        pasted
            .iter()
            .map(|f| (f.name.as_str(), f.text.len() as f64)),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "more than 32 inputs (at pasted text 33): calibrate from the runs that differ, a few are enough"
    );
}

#[test]
fn a_v0_server_keeps_its_scheduler_from_the_form_to_the_lab() {
    let files = light_results();
    let v0 = FlagFields {
        v0_engine: true,
        ..fields(["64", "4096", "", ""], false)
    };
    let page = calibrate_for_page(&files, &flags_from_fields(&v0).unwrap()).unwrap();
    assert!(page.report.contains("engine V0 (given)"), "{}", page.report);
    let held = HeldServer::new(decode(&page.handoff).unwrap());
    let (lab, _) = LabSettings::default().for_your_server(&held).reconciled();
    let ServiceKind::Llm(fleet) = scenario_for(&lab, 0.5).unwrap().service else {
        unreachable!("an LLM fleet")
    };
    assert!(
        fleet.prefill_first,
        "the lab runs V0's scheduler, prompts in steps of their own"
    );
    // With chunked prefill V0 mixes prompts and decodes in one step, as V1 does.
    let chunked = FlagFields {
        chunked_prefill: true,
        ..v0
    };
    let page = calibrate_for_page(&files, &flags_from_fields(&chunked).unwrap()).unwrap();
    let ServiceKind::Llm(fleet) = decode(&page.handoff).unwrap().scenario.service else {
        unreachable!("an LLM fleet")
    };
    assert!(!fleet.prefill_first);
}
