//! The fleet widget and its `fleet-worker` agree: every message reads back the same on the other side, and one that
//! does not read is an error naming the field.

use goodput::charts::ChartTheme;
use goodput::fleet_protocol::{FleetSettings, FromWorker, Policy, ToWorker, START_UP_DELAYS};
use goodput::model::fleet::{Route, Shape};

fn parts(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn every_setting_the_page_can_pick_reads_back_the_same_in_the_worker() {
    let themes = [
        ChartTheme::Light,
        ChartTheme::Dark,
        ChartTheme::HighContrast,
    ];
    let mut request = 0;
    for policy in Policy::ALL {
        for route in Route::ALL {
            for (start_up_delay, shape) in
                START_UP_DELAYS.into_iter().zip(Shape::ALL.iter().cycle())
            {
                request += 1;
                let message = ToWorker::Draw {
                    settings: FleetSettings {
                        policy,
                        route,
                        start_up_delay,
                        shape: *shape,
                    },
                    at: 912.5,
                    width: 358,
                    height: request % 2 * 300,
                    projection: 1.25,
                    theme: themes[request as usize % 3],
                    request,
                };
                assert_eq!(ToWorker::decode(&message.encode()), Ok(message));
            }
        }
    }
}

#[test]
fn every_answer_the_worker_sends_reads_back_the_same_in_the_page() {
    let answers = [
        FromWorker::Controls("<select name=\"signal\"></select>".to_owned()),
        FromWorker::Drawn {
            charts_html: "<figure><svg></svg></figure>".to_owned(),
            summary: "SLO attainment 99%".to_owned(),
            request: 4_000_000_000,
        },
        FromWorker::Compared {
            compared: "<table class=\"fleet-compare\"></table>".to_owned(),
            request: 7,
        },
        FromWorker::Refused("traffic: too much".to_owned()),
        FromWorker::Unreadable("why".to_owned()),
        FromWorker::Failed("offline".to_owned()),
        FromWorker::Crashed("panicked at".to_owned()),
    ];
    for message in answers {
        assert_eq!(FromWorker::decode(&message.encode()), Ok(message));
    }
}

#[test]
fn a_message_that_does_not_read_is_refused_by_name() {
    let error = |words: &[&str]| ToWorker::decode(&parts(words)).unwrap_err().to_string();
    let good = [
        "draw",
        "waiting",
        "jsq",
        "120",
        "morning-ramp",
        "900",
        "720",
        "0",
        "1.5",
        "light",
        "1",
    ];
    assert!(ToWorker::decode(&parts(&good)).is_ok());
    let with = |i: usize, word: &'static str| {
        let mut words = good;
        words[i] = word;
        error(&words)
    };
    assert!(with(1, "vibes").contains("policy"));
    assert!(with(1, "running,waiting").contains("policy"));
    assert!(with(2, "random").contains("router"));
    assert!(with(3, "two minutes").contains("start-up delay"));
    assert!(with(4, "tuesday").contains("traffic"));
    assert!(with(5, "noon").contains("time"));
    assert!(with(7, "tall").contains("height"));
    assert!(with(8, "big").contains("projection"));
    assert!(with(9, "sepia").contains("theme"));
    assert!(error(&good[..5]).contains("time is missing"));
    assert!(error(&[
        "draw", "waiting", "jsq", "120", "steady", "0", "1", "0", "1", "dark", "1", "more"
    ])
    .contains("too many"));
    assert!(error(&["read"]).contains("no request the fleet worker knows"));
    assert!(error(&["start"]).contains("id is missing"));
    let answer = |words: &[&str]| FromWorker::decode(&parts(words)).unwrap_err().to_string();
    assert!(answer(&["drawn", "", "", "soon"]).contains("request number"));
    assert!(answer(&["drawn", "", "1"]).contains("request number is missing"));
    assert!(answer(&["compared", "<table></table>"]).contains("request number is missing"));
    assert!(answer(&["reading"]).contains("no answer the fleet widget knows"));
}
