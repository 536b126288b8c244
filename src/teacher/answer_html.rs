//! The answer as the Ask box shows it, written with the house's [`HtmlWriter`] (every text escaped, links kept on
//! the page as `#section`): in the teacher's worker, and natively in the tests.

use super::answer::{Answer, Teacher, QUESTION_LIMIT_CHARS};
use super::markup::SIZER_PREFIX;
use super::passages::Passage;
use super::worked::{LittleAnswer, LittleQuantity, SizingAnswer, SizingNeed};
use crate::charts::format::{format_latency, format_number, format_percent};
use crate::cluster::autoscale::SloSuggestion;
use crate::html_writer::HtmlWriter;

impl Teacher {
    /// The answer to `question` as the Ask box shows it.
    pub fn answer_html(&self, question: &str) -> String {
        let mut m = HtmlWriter::new();
        match self.answer(question) {
            Answer::Empty => {
                m.text_element(
                    "p",
                    &[],
                    "Type a question first, for example “What is goodput?”.",
                );
            }
            Answer::TooLong(chars) => {
                m.text_element(
                    "p",
                    &[],
                    &format!(
                        "That question is {} characters long; I read questions of up to {}. Ask it in fewer words \
                         (what you typed is still in the box).",
                        chars, QUESTION_LIMIT_CHARS,
                    ),
                );
            }
            Answer::Little(little) => little_html(&mut m, &little, self.page()),
            Answer::Sizing(sizing) => sizing_html(&mut m, &sizing, self.page()),
            Answer::Slos(slos) => slos_html(&mut m, &slos, self.page()),
            Answer::Passages(found) => {
                for passage in found {
                    self.passage_html(&mut m, passage);
                }
            }
            Answer::Compared(sides) => {
                m.text_element("p", &[], "Side by side:");
                m.element("div", &[("class", "ask-compare")], |m| {
                    for (term, passage) in &sides {
                        m.element("div", &[], |m| {
                            m.element("p", &[("class", "ask-term")], |m| {
                                m.text_element("strong", &[], term);
                            });
                            self.passage_html(m, passage);
                        });
                    }
                });
            }
            Answer::Closest(opening) => self.closest_html(&mut m, "the opening of", opening),
            Answer::ClosestIn(best) => self.closest_html(&mut m, "in", best),
            Answer::NotCovered(Some(closest)) => {
                m.element("p", &[], |m| {
                    m.text(
                        "The lesson does not answer that, and I would rather say so than guess. The closest it \
                         comes is ",
                    );
                    self.section_link(m, closest);
                    m.text(".");
                });
            }
            Answer::NotCovered(None) => {
                m.text_element(
                    "p",
                    &[],
                    "Nothing in this lesson mentions those words, so I cannot answer that from the course. Try the \
                     lesson's own terms: TTFT, TPOT, percentiles, the knee, goodput, Little's Law, vLLM's metrics.",
                );
            }
        }
        m.finish()
    }

    /// One passage as the answer shows it: its kind, a link to its section, its text.
    fn passage_html(&self, m: &mut HtmlWriter, passage: &Passage) {
        m.element("p", &[("class", "ask-source")], |m| {
            m.text(passage.kind.label()).text(" · ");
            self.section_link(m, passage);
        });
        m.element("blockquote", &[], |m| {
            m.text_element("p", &[], &passage.text);
        });
    }

    /// A question nothing answers well, with the closest passage: `whereabouts` says where it sits in its section
    /// ("the opening of", "in").
    fn closest_html(&self, m: &mut HtmlWriter, whereabouts: &str, closest: &Passage) {
        m.element("p", &[], |m| {
            m.text(&format!(
                "The lesson does not answer that in so many words. The closest passage is {whereabouts} "
            ));
            self.section_link(m, closest);
            m.text(":");
        });
        self.passage_html(m, closest);
    }

    /// A link to the passage's section, named by its heading.
    fn section_link(&self, m: &mut HtmlWriter, passage: &Passage) {
        match &passage.section_id {
            Some(id) => m.text_element(
                "a",
                &[("href", &format!("{}#{id}", self.page()))],
                &passage.section_title,
            ),
            None => m.text_element(
                "a",
                &[("href", &format!("{}#main", self.page()))],
                &format!("the start of {}", self.lesson_title()),
            ),
        };
    }
}

/// A link to a section of the lesson page by its id.
fn lesson_link(m: &mut HtmlWriter, page: &str, id: &str, title: &str) {
    m.text_element("a", &[("href", &format!("{page}#{id}"))], title);
}

fn list<T>(m: &mut HtmlWriter, tag: &str, items: &[T], text: impl Fn(&T) -> &str) {
    m.element(tag, &[], |m| {
        for item in items {
            m.text_element("li", &[], text(item));
        }
    });
}

/// Little's Law worked: the value asked for, the sum, and what the value means.
fn little_html(m: &mut HtmlWriter, little: &LittleAnswer, page: &str) {
    let l = format_number(little.in_flight);
    let x = format_number(little.throughput);
    let w = format_latency(little.latency);
    let (result, sum, meaning) = match little.asked {
        LittleQuantity::InFlight => (
            format!("{l} requests in flight"),
            format!("L = X × W = {x} requests/s × {w} = {l}."),
            "In flight counts every request inside, the ones being served and the ones queued: on replicas capped \
             at --max-num-seqs, whatever is above their caps together is waiting.",
        ),
        LittleQuantity::Throughput => (
            format!("{x} requests/s"),
            format!("X = L ÷ W = {l} ÷ {w} = {x} requests/s."),
            "With a replica's concurrency cap (--max-num-seqs) as L and its latency just below the knee as W, X is \
             the most it can finish, X_max, and peak demand divided by X_max is the replica count.",
        ),
        LittleQuantity::Latency => (
            format!("{w} per request"),
            format!("W = L ÷ X = {l} ÷ {x} requests/s = {w}."),
            "W is the whole time a request spends inside, queueing included: whatever it has above the latency of \
             a lightly loaded replica is waiting.",
        ),
    };
    m.element("p", &[("class", "ask-result")], |m| {
        m.text_element("strong", &[], &result);
        m.text(" by Little's Law.");
    });
    let steps = [
        "Little's Law: requests in flight = throughput × latency, L = X × W, in any stable system, whatever the \
         arrival pattern."
            .to_owned(),
        sum,
    ];
    list(m, "ol", &steps, String::as_str);
    m.element("p", &[], |m| {
        m.text(meaning).text(" More in ");
        lesson_link(
            m,
            page,
            "littles-law-sizes-the-fleet",
            "Little's Law sizes the fleet",
        );
        m.text(".");
    });
}

fn sizing_html(m: &mut HtmlWriter, sizing: &SizingAnswer, page: &str) {
    match sizing {
        SizingAnswer::Missing(needs) => {
            m.text_element(
                "p",
                &[],
                "That is a Little's Law sizing, and I can work it with three numbers. Your question lacks:",
            );
            list(m, "ul", needs, |need| need.ask());
            m.element("p", &[], |m| {
                m.text("Ask again with them, or work it in ");
                lesson_link(
                    m,
                    page,
                    "littles-law-sizes-the-fleet",
                    "Little's Law sizes the fleet",
                );
                m.text(".");
            });
        }
        SizingAnswer::Refused(errors) => {
            m.text_element(
                "p",
                &[],
                "I read a sizing question, but cannot work it with those numbers:",
            );
            list(m, "ul", errors, |error| &error.message);
        }
        SizingAnswer::Worked {
            at_the_knee,
            with_headroom,
            defaults,
        } => {
            let input = at_the_knee.input;
            let exact = input.peak_qps / at_the_knee.per_replica_max_qps;
            let steps = [
                format!(
                    "Little's Law: in flight = throughput × latency, so a replica that holds {} requests at once and \
                     takes {} per request completes at most {} ÷ {} = {} requests/s.",
                    format_number(input.max_num_seqs),
                    format_latency(input.latency_seconds),
                    format_number(input.max_num_seqs),
                    format_number(input.latency_seconds),
                    format_number(at_the_knee.per_replica_max_qps)
                ),
                format!(
                    "Replicas = ⌈{} ÷ {}⌉ = ⌈{}⌉ = {}.",
                    format_number(input.peak_qps),
                    format_number(at_the_knee.per_replica_max_qps),
                    format_number(exact),
                    at_the_knee.replicas
                ),
            ];
            let caveat = format!(
                "Headroom: {} replicas run every one at its maximum, which is the knee, where p99 tears away from \
                 p50. At {} headroom each replica carries {} requests/s, so plan on {} replicas, and take the \
                 latency from a load test just below the knee, not from an idle server.",
                at_the_knee.replicas,
                format_percent(with_headroom.input.headroom),
                format_number(with_headroom.per_replica_target_qps),
                with_headroom.replicas
            );
            m.element("p", &[("class", "ask-result")], |m| {
                m.text_element("strong", &[], &format!("{} replicas", at_the_knee.replicas));
                m.text(&format!(
                    " for {} requests/s at the knee; {} with headroom.",
                    format_number(input.peak_qps),
                    with_headroom.replicas
                ));
            });
            defaults_html(m, defaults);
            list(m, "ol", &steps, String::as_str);
            m.text_element("p", &[], &caveat);
            let fields = [
                ("max-num-seqs", input.max_num_seqs.to_string()),
                ("latency-s", input.latency_seconds.to_string()),
                ("peak-qps", input.peak_qps.to_string()),
                ("headroom", with_headroom.input.headroom.to_string()),
            ]
            .map(|(name, value)| (format!("{SIZER_PREFIX}{name}"), value));
            let mut attributes = vec![("type", "button"), ("class", "widget-button")];
            attributes.extend(fields.iter().map(|(n, v)| (n.as_str(), v.as_str())));
            m.text_element("button", &attributes, "Open the sizer with these numbers");
        }
    }
}

/// What the question did not give and the course box stood in for, or nothing when it gave everything.
fn defaults_html(m: &mut HtmlWriter, defaults: &[SizingNeed]) {
    if defaults.is_empty() {
        return;
    }
    let taken: Vec<String> = defaults
        .iter()
        .map(|need| {
            let value = need.field().default_value();
            match need {
                SizingNeed::ConcurrencyCap => format!(
                    "--max-num-seqs {} (the course box: Qwen3.6-27B on 4×H100)",
                    format_number(value)
                ),
                SizingNeed::Latency => format!(
                    "W = {} per request at the knee (the lesson's worked example)",
                    format_latency(value)
                ),
                SizingNeed::PeakDemand => format!(
                    "a peak of {} requests/s (the lesson's evening peak)",
                    format_number(value)
                ),
            }
        })
        .collect();
    m.text_element(
        "p",
        &[("class", "ask-defaults")],
        &format!(
            "Where your question gave no number I took the course box's: {}. Give your own to size your fleet.",
            taken.join("; ")
        ),
    );
}

fn slos_html(m: &mut HtmlWriter, slos: &[&SloSuggestion], page: &str) {
    m.text_element(
        "p",
        &[],
        "SLOs to start from (the sizer's table; starting points to argue with, not standards):",
    );
    m.element("ul", &[], |m| {
        for suggestion in slos {
            m.element("li", &[], |m| {
                m.text_element("strong", &[], suggestion.name);
                m.text(&format!(
                    ": p99 TTFT ≤ {}, p95 TPOT ≤ {}. {}",
                    format_latency(suggestion.slo.ttft_p99),
                    format_latency(suggestion.slo.tpot_p95),
                    suggestion.reasoning
                ));
            });
        }
    });
    m.element("p", &[], |m| {
        m.text("Measure against them as in ");
        lesson_link(
            m,
            page,
            "goodput-throughput-that-meets-the-slo",
            "Goodput: throughput that meets the SLO",
        );
        m.text(".");
    });
}
