//! Each island kind's view (`goodput::views`) rendered to HTML natively, as the page build renders it and as the
//! wasm mounts it: the text a reader sees, and the attributes the wasm reads back (`lesson::island_markup`).

use goodput::lesson::island_markup as markup;
use goodput::lesson::{catalog, Block, Html, Task, TaskList};
use goodput::pages::build_site;
use goodput::views::reveal::{FoldedReveal, LiveReveal, RevealText};
use goodput::views::tasks::TasksView;
use leptos::prelude::*;

fn reveal_text() -> RevealText {
    RevealText {
        id: "recall-1-answer".to_owned(),
        show: "Show answer".to_owned(),
        hide: "Hide answer".to_owned(),
        answer: Html("TTFT &amp; <em>TPOT</em>".to_owned()),
    }
}

fn task_list() -> TaskList {
    TaskList {
        id: "lab-tasks".to_owned(),
        title: "In the knee lab".to_owned(),
        tasks: vec![
            Task {
                id: "knee-lab/p99-crosses-slo".to_owned(),
                label: Html("Push p99 past the <strong>SLO</strong>".to_owned()),
            },
            Task {
                id: "knee-lab/add-replica".to_owned(),
                label: Html("Add a replica".to_owned()),
            },
        ],
    }
}

/// The opening tag that holds `needle` (an attribute), by a plain scan: Leptos writes an element's attributes in its
/// own order, `class` last.
fn tag<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in {html}"));
    let start = html[..at].rfind('<').expect("inside a tag");
    let end = at + html[at..].find('>').expect("the tag ends");
    &html[start..=end]
}

/// Whether `tag` has the attribute `name="value"`.
fn has(tag: &str, name: &str, value: &str) -> bool {
    tag.contains(&format!(" {name}=\"{value}\""))
}

#[test]
fn a_pre_rendered_reveal_folds_its_answer_in_a_details_that_opens_without_javascript() {
    let text = reveal_text();
    let html = view! { <FoldedReveal text/> }.to_html();
    let details = tag(&html, markup::OPENABLE_ANSWER);
    assert!(
        details.starts_with("<details ") && has(details, "class", "reveal-static"),
        "{html}"
    );
    let summary = tag(&html, markup::LIVE_FOCUS);
    assert!(has(summary, markup::LIVE_FOCUS, ".reveal-toggle"), "{html}");
    assert!(
        html.contains(&format!("{summary}Show answer</summary>")),
        "{html}"
    );
    // The answer is the lesson's HTML, written as it is, where the wasm reads it back.
    let answer = tag(&html, markup::REVEAL_ANSWER_CLASS);
    assert!(has(answer, "class", markup::REVEAL_ANSWER_CLASS), "{html}");
    assert!(
        html.contains(&format!("{answer}TTFT &amp; <em>TPOT</em></p></details>")),
        "{html}"
    );
    assert!(
        !html.contains("<button"),
        "no control that needs JavaScript: {html}"
    );
    assert!(!html.contains("Hide answer"), "{html}");
}

#[test]
fn a_live_reveal_is_a_button_that_controls_its_answer() {
    let closed = RwSignal::new(false);
    let text = reveal_text();
    let html = view! { <LiveReveal text open=closed/> }.to_html();
    let button = tag(&html, "aria-controls");
    assert!(has(button, "aria-controls", "recall-1-answer"), "{html}");
    assert!(has(button, "aria-expanded", "false"), "{html}");
    assert!(
        has(button, "data-present-reveal", ""),
        "the presentation's R key finds it: {html}"
    );
    assert!(
        html.contains(&format!("{button}Show answer</button>")),
        "{html}"
    );
    let answer = tag(&html, "id=\"recall-1-answer\"");
    assert!(answer.contains(" hidden"), "{html}");
    assert!(!html.contains("<details"), "{html}");

    let opened = RwSignal::new(true);
    let text = reveal_text();
    let html = view! { <LiveReveal text open=opened/> }.to_html();
    let button = tag(&html, "aria-controls");
    assert!(has(button, "aria-expanded", "true"), "{html}");
    assert!(
        html.contains(&format!("{button}Hide answer</button>")),
        "{html}"
    );
    let answer = tag(&html, "id=\"recall-1-answer\"");
    assert!(!answer.contains("hidden"), "{html}");
    assert!(
        html.contains(&format!("{answer}<p>TTFT &amp; <em>TPOT</em></p></div>")),
        "{html}"
    );
}

#[test]
fn a_pre_rendered_task_list_names_every_task_with_nothing_done() {
    let list = task_list();
    let html = view! { <TasksView list ticked=|_: &str| false/> }.to_html();
    let section = tag(&html, "aria-labelledby");
    assert!(
        has(section, "id", "lab-tasks") && has(section, "class", "lesson-tasks"),
        "{html}"
    );
    assert!(has(section, "aria-labelledby", "lab-tasks-title"), "{html}");
    assert!(html.contains(">Tasks · they tick themselves</p>"), "{html}");
    assert!(
        html.contains("<h3 id=\"lab-tasks-title\">In the knee lab</h3>"),
        "{html}"
    );
    for (id, label) in [
        (
            "knee-lab/p99-crosses-slo",
            "Push p99 past the <strong>SLO</strong>",
        ),
        ("knee-lab/add-replica", "Add a replica"),
    ] {
        let item = tag(&html, &format!("{}=\"{id}\"", markup::TASK_ID));
        assert!(
            item.starts_with("<li ") && has(item, "class", "task"),
            "{html}"
        );
        let rest = &html[html.find(item).expect("the item")..];
        let rest = &rest[..rest.find("</li>").expect("the item ends")];
        assert!(rest.contains(">○</span>"), "{rest}");
        assert!(
            rest.contains(&format!(
                "<span class=\"{}\">{label}</span>",
                markup::TASK_LABEL_CLASS
            )),
            "{rest}"
        );
        assert!(rest.contains("> (not yet)</span>"), "{rest}");
    }
    let count = tag(&html, "role=\"status\"");
    assert!(has(count, "class", "task-count"), "{html}");
    assert!(html.contains(&format!("{count}0 of 2 done.</p>")), "{html}");
    assert!(!html.contains("task-done"), "{html}");
}

#[test]
fn a_ticked_task_shows_it_by_mark_text_and_class() {
    let list = task_list();
    let html = view! { <TasksView list ticked=|id: &str| id == "knee-lab/add-replica"/> }.to_html();
    let ticked = tag(&html, "data-task=\"knee-lab/add-replica\"");
    assert!(has(ticked, "class", "task task-done"), "{html}");
    let rest = &html[html.find(ticked).expect("the item")..];
    assert!(
        rest.contains(">✓</span>") && rest.contains("> (done)</span>"),
        "{rest}"
    );
    assert!(
        has(
            tag(&html, "data-task=\"knee-lab/p99-crosses-slo\""),
            "class",
            "task"
        ),
        "{html}"
    );
    assert!(html.contains(">1 of 2 done.</p>"), "{html}");
}

#[test]
fn the_lesson_page_writes_its_reveals_and_task_lists_from_the_views() {
    let lesson = goodput::lesson::find("latency-throughput-slos").expect("the lesson ships");
    let site = build_site(catalog()).expect("the course's pages build");
    let page = site
        .pages
        .iter()
        .find(|page| page.path == "lessons/latency-throughput-slos/index.html")
        .expect("the lesson page");
    let (mut recalls, mut lists) = (0, 0);
    for block in &lesson.blocks {
        match block {
            Block::RecallCard(card) => {
                let id = format!("{}-answer", card.id);
                let wrapper = tag(&page.body, &format!("{}=\"{id}\"", markup::REVEAL_ID));
                assert!(has(wrapper, markup::ISLAND, "reveal"), "{wrapper}");
                let text = RevealText {
                    id,
                    show: "Show answer".to_owned(),
                    hide: "Hide answer".to_owned(),
                    answer: card.answer.clone(),
                };
                let view = view! { <FoldedReveal text/> }.to_html();
                assert!(
                    page.body.contains(&format!("{wrapper}{view}</div>")),
                    "{view}"
                );
                recalls += 1;
            }
            Block::Tasks(list) => {
                let wrapper = tag(&page.body, &format!("{}=\"{}\"", markup::LIST_ID, list.id));
                assert!(has(wrapper, markup::ISLAND, "tasks"), "{wrapper}");
                let list = list.clone();
                let view = view! { <TasksView list ticked=|_: &str| false/> }.to_html();
                assert!(
                    page.body.contains(&format!("{wrapper}{view}</div>")),
                    "{view}"
                );
                lists += 1;
            }
            _ => {}
        }
    }
    assert!(
        recalls > 0 && lists > 0,
        "{recalls} recall cards, {lists} task lists"
    );
}
