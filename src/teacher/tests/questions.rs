//! The teacher asked the learners' questions of `fixtures/learner-questions.txt` and the blind ones of
//! [`BLIND_QUESTIONS`]: each must lead with the section (or the worked answer, or the honest
//! "not in this lesson") written beside it. Prints top-1 and top-3 accuracy for the questions the teacher was tuned
//! on and, separately, for the held-out and the blind ones, and requires 90% top-1 of the tuned ones and a floor of
//! the held-out and blind ones (see [`Set::required_top_1`]).
//! A set with no questions (the blind one, between two blind sets) is reported as empty and judged on nothing.

use goodput::cluster::autoscale::Workload;
use goodput::lesson::{find, Block};
use goodput::presentation::html::{first_id, heading_level, top_level_fragments};
use goodput_teacher::answer::Answer;
use goodput_teacher::passages::Passage;
use goodput_teacher::worked::{LittleQuantity, SizingAnswer};
use goodput_teacher::Teacher;

const QUESTIONS: &str = include_str!("fixtures/learner-questions.txt");
/// The blind set, written by someone who has seen neither the teacher nor its questions and scored once as it comes:
/// the sixth (written at stop 54 from the lesson alone, committed in 894097e before round seven's first change). The
/// first five were spent (split between the tuned and held-out sets, see the question file); each is held to its
/// first run in [`Set::required_top_1`].
const BLIND_QUESTIONS: &str = include_str!("fixtures/learner-questions-blind6.txt");
/// Which questions a case belongs to: how the teacher's makers have seen it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Set {
    /// The teacher was improved while looking at these.
    Tuned,
    /// Written with the tuned ones; only totals reported, but the third tuning pass looked at its misses.
    HeldOut,
    /// Written after the last tuning pass and committed before the teacher answered them (the first five blind sets,
    /// once scored, were split between the tuned and the held-out ones; see the question file).
    Blind,
}

impl Set {
    const ALL: [Set; 3] = [Set::Tuned, Set::HeldOut, Set::Blind];

    fn name(self) -> &'static str {
        match self {
            Set::Tuned => "tuned",
            Set::HeldOut => "held-out",
            Set::Blind => "blind",
        }
    }

    /// The share of the set whose first answer must be right: 90% of the tuned ones, as issue 44 asks; for the
    /// held-out ones what they last scored, under that 90% (the held-out set measures less than a blind
    /// one since its misses were studied: see the question file's header); for the blind ones what they scored on
    /// their first run after the last tuning pass.
    fn required_top_1(self) -> f64 {
        match self {
            Set::Tuned => 0.9,
            Set::HeldOut => HELD_OUT_TOP_1,
            Set::Blind => BLIND6_FIRST_RUN_TOP_1,
        }
    }
}

/// The held-out set's top-1 share after round seven (stop 54: 118 of 129, run once at its end, unchanged by it; 118 of
/// 129 once the fifth blind set's held-out ten joined it before round seven, all 10 of those ten; in round six, stop 53: 108 of 119 once chat spellings such as "hows", "gonna" and
/// "k8s" were read, 107 of 119 once misspelt words were read as the words meant, 106 of 119 before; 105 of 119 once the
/// fourth blind set's held-out ten joined it, 8 of those 10; 97 of 109 after round five; 94 of 109 once the third blind
/// set's ten joined it at stop 52, 6 of those 10; 88 of 99 after round four; 86 of 99 when the second blind set's ten
/// joined it at stop 51): issue 44 asks for 90%, which it meets (91.5%; 90.8% after round six, which watched this
/// total after each change, see the question file's header; round seven ran it only before and after); it is held to
/// what it scores rather than shorn of the questions it fails.
const HELD_OUT_TOP_1: f64 = 118.0 / 129.0;

/// The first blind set's top-1 share on its first run (stop 49: 16 of 24, against 98% for the held-out third after
/// its misses were studied), kept as the record of that run. Those 24 questions are now tuned (16) and held out
/// (8): split every third before their misses were looked at (stop 50).
const BLIND_FIRST_RUN_TOP_1: f64 = 16.0 / 24.0;

/// The second blind set's top-1 share on its first run (stop 50, after round three's fixes: 21 of 30, top-3 the
/// same), kept as the record of that run. Those 30 questions are now tuned (20) and held out (10): split every third
/// before their misses were looked at (stop 51).
const BLIND2_FIRST_RUN_TOP_1: f64 = 21.0 / 30.0;

/// The third blind set's top-1 share on its first run (stop 51, after round four's fixes: 18 of 30, top-3 22; only the
/// totals were printed), kept as the record of that run. Those 30 questions are now tuned (20) and held out (10):
/// split every third before their misses were looked at (stop 52).
const BLIND3_FIRST_RUN_TOP_1: f64 = 18.0 / 30.0;

/// The fourth blind set's top-1 share on its first run (stop 52, after round five's fixes, at 6a31a51: 25 of 30, top-3
/// 29; only the totals were printed), kept as the record of that run. Those 30 questions are now tuned (20) and held
/// out (10): split every third before their misses were looked at (stop 53).
const BLIND4_FIRST_RUN_TOP_1: f64 = 25.0 / 30.0;

/// The fifth blind set's top-1 share on its first run after round six (stop 53, at 46a8806: 26 of 30, top-3 27; only
/// the totals were printed), kept as the record of that run. The same set run once at 040cee1, before round six,
/// scored 25 of 30 (top-3 27): round six's gain on questions its author never saw is one question, against 105 to 108
/// of 119 on the held-out set it watched. Those 30 questions are now tuned (20) and held out (10): split every third
/// before their misses were looked at (stop 54).
const BLIND5_FIRST_RUN_TOP_1: f64 = 26.0 / 30.0;

/// The sixth blind set's top-1 share on its first run after round seven (stop 54, at 1493cf7: 26 of 30, top-3 29; only
/// the totals were printed). The same set run once with the teacher as it was before round seven (894097e's) scored
/// the same, 26 of 30 (top-3 29): round seven's gain on questions its author never saw is none, as on the held-out
/// set.
const BLIND6_FIRST_RUN_TOP_1: f64 = 26.0 / 30.0;

/// One acceptable answer.
#[derive(Debug)]
enum Expect {
    /// A passage of one of these sections, containing one of the phrases (if any).
    Section {
        ids: Vec<String>,
        phrases: Vec<String>,
    },
    /// A worked sizing with this many replicas at the knee.
    Replicas(u64),
    /// The SLO table's suggestion for this kind of application.
    Slo(Workload),
    /// "Not in this lesson".
    NotCovered,
    /// Little's Law worked for one of its three quantities, with this value.
    LittlesLaw(LittleQuantity, f64),
}

struct Case {
    set: Set,
    expect: Vec<Expect>,
    question: String,
}

fn workload(name: &str) -> Workload {
    match name {
        "chat" => Workload::Chat,
        "rag" => Workload::Rag,
        "code" => Workload::CodeCompletion,
        "agent" => Workload::Agent,
        "batch" => Workload::BatchSummarisation,
        other => panic!("unknown workload {other}"),
    }
}

fn expectation(text: &str) -> Expect {
    let text = text.trim();
    if text == "none" {
        return Expect::NotCovered;
    }
    if let Some(count) = text.strip_prefix("replicas=") {
        return Expect::Replicas(count.parse().expect("a replica count"));
    }
    if let Some(name) = text.strip_prefix("slo=") {
        return Expect::Slo(workload(name));
    }
    for (prefix, quantity) in [
        ("in-flight=", LittleQuantity::InFlight),
        ("latency-s=", LittleQuantity::Latency),
        ("qps=", LittleQuantity::Throughput),
    ] {
        if let Some(value) = text.strip_prefix(prefix) {
            return Expect::LittlesLaw(quantity, value.parse().expect("a number"));
        }
    }
    let mut parts = text.split(" ~ ");
    let ids = parts.next().expect("a section");
    Expect::Section {
        ids: ids
            .split(" or ")
            .map(|id| id.trim().trim_start_matches('#').to_owned())
            .collect(),
        phrases: parts.map(|p| p.trim().to_lowercase()).collect(),
    }
}

/// The cases of the file. " or " separates alternatives; a phrase list (after " ~ ") belongs to every section
/// alternative before it.
fn cases() -> Vec<Case> {
    QUESTIONS
        .lines()
        .chain(BLIND_QUESTIONS.lines())
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.splitn(3, " | ").collect();
            let [set, expect, question] = fields[..] else {
                panic!("not SET | EXPECT | QUESTION: {line}");
            };
            let set = Set::ALL
                .into_iter()
                .find(|s| s.name() == set)
                .unwrap_or_else(|| panic!("no set called {set:?}: {line}"));
            Case {
                set,
                expect: alternatives(expect),
                question: question.trim().to_owned(),
            }
        })
        .collect()
}

/// "replicas=4 or #a or #b ~ x ~ y": the non-section alternatives, and one section expectation holding every id.
fn alternatives(text: &str) -> Vec<Expect> {
    let (head, phrases) = text.split_once(" ~ ").unwrap_or((text, ""));
    let mut found = Vec::new();
    let mut ids = Vec::new();
    for part in head.split(" or ") {
        match expectation(part) {
            Expect::Section { ids: more, .. } => ids.extend(more),
            other => found.push(other),
        }
    }
    if !ids.is_empty() {
        found.push(Expect::Section {
            ids,
            phrases: phrases
                .split(" ~ ")
                .map(|p| p.trim().to_lowercase())
                .filter(|p| !p.is_empty())
                .collect(),
        });
    }
    found
}

/// Each heading's anchor and the anchor of the `##` section it sits in (its own for a `##`): a question about a
/// section is answered by any of its sub-sections too ("On your cluster" holds "Queue or shed").
fn parents() -> Vec<(String, String)> {
    let lesson = find("latency-throughput-slos").expect("the course lesson");
    let mut found = Vec::new();
    let mut parent = String::new();
    for block in &lesson.blocks {
        let Block::Html(html) = block else { continue };
        for range in top_level_fragments(html.as_str()) {
            let fragment = &html.as_str()[range];
            let (Some(level), Some(id)) = (heading_level(fragment), first_id(fragment)) else {
                continue;
            };
            if level <= 2 {
                parent = id.clone();
            }
            found.push((id, parent.clone()));
        }
    }
    found
}

fn passage_fits(expect: &Expect, passage: &Passage) -> bool {
    let Expect::Section { ids, phrases } = expect else {
        return false;
    };
    let parents = parents();
    let in_section = passage.section_id.as_ref().is_some_and(|id| {
        ids.contains(id)
            || parents
                .iter()
                .any(|(child, parent)| child == id && ids.contains(parent))
    });
    let text = passage.text.to_lowercase();
    in_section && (phrases.is_empty() || phrases.iter().any(|phrase| text.contains(phrase)))
}

fn answer_fits(expect: &Expect, answer: &Answer) -> bool {
    match (expect, answer) {
        (Expect::Replicas(count), Answer::Sizing(SizingAnswer::Worked { at_the_knee, .. })) => {
            at_the_knee.replicas == *count
        }
        (Expect::Slo(workload), Answer::Slos(slos)) => {
            slos.first().is_some_and(|s| s.workload == *workload)
        }
        (Expect::NotCovered, Answer::NotCovered(_)) => true,
        (Expect::LittlesLaw(quantity, value), Answer::Little(little)) => {
            little.asked == *quantity && (little.value() - value).abs() <= 0.01 * value.abs()
        }
        (Expect::Section { .. }, answer) => answer
            .shown()
            .first()
            .is_some_and(|passage| passage_fits(expect, passage)),
        _ => false,
    }
}

/// (right first, right among the first three): a passage answer counts for the top 3 when one of the three best
/// ranked passages fits; a worked answer or "not covered" is one answer, so its top 3 is its top 1.
fn grade(teacher: &Teacher, case: &Case) -> (bool, bool) {
    let answer = teacher.answer(&case.question);
    let top_1 = case.expect.iter().any(|e| answer_fits(e, &answer));
    let top_3 = top_1
        || (!answer.shown().is_empty()
            && teacher
                .ranked(&case.question)
                .iter()
                .take(3)
                .any(|passage| case.expect.iter().any(|e| passage_fits(e, passage))));
    (top_1, top_3)
}

fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Sizing(sizing) => format!("sizing {sizing:?}"),
        Answer::Little(little) => format!("little's law {little:?}"),
        Answer::Slos(slos) => format!(
            "slos {:?}",
            slos.iter().map(|s| s.workload).collect::<Vec<_>>()
        ),
        Answer::NotCovered(closest) => {
            format!("not covered (closest {:?})", closest.map(|p| &p.section_id))
        }
        Answer::Empty => "empty".to_owned(),
        other => other
            .shown()
            .first()
            .map(|p| {
                format!(
                    "{:?} #{} {:.70}",
                    p.kind,
                    p.section_id.as_deref().unwrap_or("-"),
                    p.text
                )
            })
            .unwrap_or_default(),
    }
}

#[test]
fn learners_questions_are_answered_from_the_right_part_of_the_lesson() {
    let teacher = Teacher::new(find("latency-throughput-slos").expect("the course lesson"));
    let cases = cases();
    assert!(cases.len() >= 80, "{} questions", cases.len());
    let mut report = Vec::new();
    for which in Set::ALL {
        let set: Vec<&Case> = cases.iter().filter(|c| c.set == which).collect();
        let name = which.name();
        if set.is_empty() {
            assert_eq!(which, Set::Blind, "no {name} questions");
            println!("{name}: no questions");
            continue;
        }
        let (mut top_1, mut top_3) = (0, 0);
        for case in &set {
            let (first, three) = grade(&teacher, case);
            top_1 += usize::from(first);
            top_3 += usize::from(three);
            // The held-out and blind questions are judged only by their totals, so they cannot be tuned one by one.
            if !first && which == Set::Tuned {
                println!(
                    "MISS {:?}\n     got {}",
                    case.question,
                    describe(&teacher.answer(&case.question))
                );
            }
        }
        let n = set.len() as f64;
        println!(
            "{name}: {} questions, top-1 {:.1}% ({top_1}), top-3 {:.1}% ({top_3})",
            set.len(),
            100.0 * top_1 as f64 / n,
            100.0 * top_3 as f64 / n
        );
        report.push((name, top_1 as f64 / n, which.required_top_1()));
    }
    println!(
        "(the six blind sets scored {:.1}%, {:.1}%, {:.1}%, {:.1}%, {:.1}% and {:.1}% top-1 on their first runs)",
        100.0 * BLIND_FIRST_RUN_TOP_1,
        100.0 * BLIND2_FIRST_RUN_TOP_1,
        100.0 * BLIND3_FIRST_RUN_TOP_1,
        100.0 * BLIND4_FIRST_RUN_TOP_1,
        100.0 * BLIND5_FIRST_RUN_TOP_1,
        100.0 * BLIND6_FIRST_RUN_TOP_1
    );
    for (name, top_1, required) in report {
        assert!(
            top_1 >= required,
            "{name}: top-1 {:.1}% is under {:.0}%",
            100.0 * top_1,
            100.0 * required
        );
    }
}
