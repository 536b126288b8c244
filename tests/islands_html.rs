//! Each island kind's view (`goodput::views`) rendered to HTML natively, as the page build renders it and as the
//! wasm mounts it: the text a reader sees, and the attributes the wasm reads back (`lesson::island_markup`).

use goodput::charts::DataTable;
use goodput::lesson::island_markup as markup;
use goodput::lesson::{Block, Html, Task, TaskList};
use goodput::theme::ThemeChoice;
use goodput::views::data_table::folded_table_html;
use goodput::views::progress::progress_line;
use goodput::views::reveal::{FoldedReveal, LiveReveal, RevealText};
use goodput::views::tasks::TasksView;
use goodput::views::theme::theme_picker;
use goodput::views::widget_frame::WidgetFrame;
use leptos::prelude::*;

#[path = "support/markup.rs"]
mod markup_scan;
use markup_scan::{has, lesson_page, site, tag};

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
        html.contains("<h3 id=\"lab-tasks-title\" class=\"island-title\">In the knee lab</h3>"),
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
    let page = lesson_page();
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

/// The progress line saying `count` and `note`, rendered as the page build renders it.
fn progress_html(count: &str, note: Option<&str>) -> String {
    let count = count.to_owned();
    let note = note.map(str::to_owned);
    progress_line(move || count.clone(), move || note.clone(), || {}).to_html()
}

#[test]
fn a_progress_line_says_the_count_and_offers_a_reset_that_needs_javascript() {
    let html = progress_html("11 predict-then-reveal steps in this lesson.", None);
    let section = tag(&html, "aria-label");
    assert!(
        section.starts_with("<section ")
            && has(section, "aria-label", "Your progress")
            && has(section, "class", "lesson-progress"),
        "{html}"
    );
    assert!(
        html.contains(
            "<p class=\"progress-count\">11 predict-then-reveal steps in this lesson.</p>"
        ),
        "{html}"
    );
    let button = tag(&html, "<button");
    assert!(
        has(button, "type", "button") && has(button, "class", "progress-reset needs-js"),
        "hidden without JavaScript: {html}"
    );
    assert!(
        html.contains(&format!("{button}Reset my progress</button>")),
        "{html}"
    );
    assert!(
        !html.contains("Forget every guess") && !html.contains("Progress reset."),
        "asks and confirms only once pressed: {html}"
    );
    for class in ["progress-note", "progress-done"] {
        let status = tag(&html, &format!("class=\"{class}\""));
        assert!(has(status, "role", "status"), "{html}");
        let after = &html[html.find(status).expect("the status") + status.len()..];
        assert!(
            after.replace("<!>", "").starts_with("</p>"),
            "{class} says nothing yet: {html}"
        );
    }
}

#[test]
fn a_progress_line_shows_the_storage_note_in_its_status() {
    let note = "Your progress could not be saved in this browser.";
    let html = progress_html("3 of 11 steps answered, 2 right.", Some(note));
    assert!(
        html.contains(">3 of 11 steps answered, 2 right.</p>"),
        "{html}"
    );
    let status = tag(&html, "class=\"progress-note\"");
    assert!(
        html.contains(&format!("{status}{note}")),
        "the note is the status's text: {html}"
    );
}

#[test]
fn the_lesson_page_writes_its_progress_line_from_the_view() {
    let lesson = goodput::lesson::find("latency-throughput-slos").expect("the lesson ships");
    let page = lesson_page();
    let steps = lesson
        .blocks
        .iter()
        .filter(|block| matches!(block, Block::Predict(_)))
        .count();
    let view = progress_html(
        &format!("{steps} predict-then-reveal steps in this lesson."),
        None,
    );
    let wrapper = tag(
        &page.body,
        &format!("{}=\"progress-summary\"", markup::ISLAND),
    );
    assert!(
        page.body.contains(&format!("{wrapper}{view}</div>")),
        "{view}"
    );
}

#[test]
fn a_theme_picker_offers_every_theme_and_shows_the_choice() {
    let html = theme_picker(|| ThemeChoice::Dark, |_| {}).to_html();
    assert!(
        html.starts_with("<label class=\"theme-switcher\">Theme <select"),
        "the select is labelled Theme: {html}"
    );
    for choice in ThemeChoice::ALL {
        let option = tag(&html, &format!("value=\"{}\"", choice.as_str()));
        assert!(
            html.contains(&format!("{option}{}</option>", choice.label())),
            "{html}"
        );
        assert_eq!(
            option.contains(" selected"),
            choice == ThemeChoice::Dark,
            "{option}"
        );
    }
}

#[test]
fn every_page_writes_its_theme_picker_from_the_view_showing_the_system_choice() {
    let view = theme_picker(|| ThemeChoice::System, |_| {}).to_html();
    for page in &site().pages {
        let wrapper = tag(
            &page.body,
            &format!("{}=\"theme-switcher\"", markup::ISLAND),
        );
        assert!(
            page.body.contains(&format!("{wrapper}{view}</span>")),
            "{}: {view}",
            page.path
        );
    }
}

#[test]
fn a_widget_frame_labels_its_section_and_shows_the_caption_and_notes() {
    let lesson = goodput::lesson::find("latency-throughput-slos").expect("the lesson ships");
    let widget = lesson
        .blocks
        .iter()
        .find_map(|block| match block {
            Block::Widget(widget) if widget.caption.is_some() => Some(widget),
            _ => None,
        })
        .expect("a widget with a caption");
    let caption = widget.caption.as_deref().expect("its caption");
    let notes = vec!["load 140% is out of range: 100% used".to_owned()];
    let html = view! {
        <WidgetFrame widget id="the-lab".to_owned() notes>
            <p class="body">"the widget"</p>
        </WidgetFrame>
    }
    .to_html();
    let section = tag(&html, "class=\"lesson-widget\"");
    let name = widget.name.as_str();
    assert!(
        has(section, "id", "the-lab")
            && has(section, "data-widget", name)
            && has(section, "class", "lesson-widget"),
        "{html}"
    );
    assert!(
        has(section, "aria-label", &format!("Interactive: {caption}")),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"lesson-label\">Interactive</p>")
            && !html.contains(&format!("<code>{name}</code>")),
        "the label names no widget id: {html}"
    );
    let caption_tag = tag(&html, &format!("class=\"{}\"", markup::CAPTION_CLASS));
    assert!(
        html.contains(&format!("{caption_tag}{caption}</p>")),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"widget-note\">load 140% is out of range: 100% used</p>"),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"body\">the widget</p></section>"),
        "the widget comes last: {html}"
    );
}

#[test]
fn the_lesson_page_frames_its_widgets_with_the_view() {
    let page = lesson_page();
    let lesson = goodput::lesson::find("latency-throughput-slos").expect("the lesson ships");
    let widgets = lesson.widgets();
    // The widget islands' anchor ids, in page order.
    let ids: Vec<String> = page
        .body
        .match_indices(&format!("{}=\"", markup::WIDGET_ID))
        .map(|(at, attribute)| {
            let value = &page.body[at + attribute.len()..];
            value[..value.find('"').expect("quoted")].to_owned()
        })
        .collect();
    assert_eq!(ids.len(), widgets.len(), "one island per widget");
    for (widget, id) in widgets.into_iter().zip(ids) {
        // The frame as the view writes it, up to its (here empty) notes and what it frames: the page's no-JavaScript
        // version.
        let empty = view! { <WidgetFrame widget id=id.clone()>""</WidgetFrame> }.to_html();
        let opening = &empty[..empty.find("<!>").expect("the empty notes' marker")];
        assert!(page.body.contains(opening), "{id}: {opening}");
    }
}

#[test]
fn a_data_table_is_folded_under_the_caption_in_a_region_a_keyboard_can_scroll() {
    let table = DataTable {
        header: vec!["load".to_owned(), "p99 TTFT".to_owned()],
        rows: vec![
            vec!["85%".to_owned(), "0.41 s".to_owned()],
            vec!["99%".to_owned(), "—".to_owned()],
        ],
    };
    let html = folded_table_html(&table, "p99 against load");
    assert!(
        html.starts_with(
            "<details class=\"chart-data\"><summary>Data table: p99 against load</summary>"
        ),
        "{html}"
    );
    let region = tag(&html, "role=\"region\"");
    assert!(
        has(region, "tabindex", "0")
            && has(region, "aria-label", "p99 against load data")
            && has(region, "class", "scroll-x"),
        "{html}"
    );
    let text = html.replace("<!>", "");
    assert!(
        text.contains(
            "<thead><tr><th scope=\"col\">load</th><th scope=\"col\">p99 TTFT</th></tr></thead>"
        ),
        "{html}"
    );
    assert!(
        text.contains(
            "<tbody><tr><td>85%</td><td>0.41 s</td></tr><tr><td>99%</td><td>—</td></tr></tbody>"
        ),
        "{html}"
    );
}

#[test]
fn an_empty_data_table_still_names_its_chart() {
    let html = folded_table_html(&DataTable::default(), "Queue over time");
    assert!(
        html.contains("<summary>Data table: Queue over time</summary>"),
        "{html}"
    );
    assert!(!html.contains("<th ") && !html.contains("<td>"), "{html}");
}
