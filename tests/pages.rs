//! The static site as the build writes it (`goodput_pages`): every lesson's whole article in its HTML, each
//! interactive part an island whose data reads back as the lesson's, every block marked with its presentation screen,
//! and pictures drawn for the widgets.

use goodput::lesson::island_markup::{self as markup, IslandKind};
use goodput::lesson::{catalog, Block, Lesson, PredictAnswer};
use goodput::presentation::html::top_level_fragments;
use goodput::presentation::screens::lesson_screens;
use goodput_pages::{build_site, Page, Site};
use std::collections::BTreeMap;
use std::sync::OnceLock;

fn site() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| build_site(catalog()).expect("the course's pages build"))
}

fn lesson() -> &'static Lesson {
    goodput::lesson::find("latency-throughput-slos").expect("lesson 32 ships")
}

fn page(path: &str) -> &'static Page {
    site()
        .pages
        .iter()
        .find(|page| page.path == path)
        .unwrap_or_else(|| panic!("no page {path}"))
}

fn lesson_page() -> &'static Page {
    page("lessons/latency-throughput-slos/index.html")
}

/// The attributes of every element whose opening tag carries `needle`, by a plain scan of the writer's own output
/// (double-quoted values, escaped by `pages::writer`).
fn tags_with(html: &str, needle: &str) -> Vec<BTreeMap<String, String>> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = html[at..].find(needle) {
        let hit = at + offset;
        let start = html[..hit].rfind('<').expect("inside a tag");
        let end = hit + html[hit..].find('>').expect("the tag ends");
        found.push(attributes(&html[start..end]));
        at = end;
    }
    found
}

fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].rsplit(' ').next().unwrap_or_default().to_owned();
        let value_start = eq + 2;
        let value_end = value_start + rest[value_start..].find('"').expect("closed value");
        let value = rest[value_start..value_end]
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        map.insert(name, value);
        rest = &rest[value_end + 1..];
    }
    map
}

#[test]
fn the_site_has_a_home_page_a_page_per_lesson_and_a_not_found_page() {
    let paths: Vec<&str> = site().pages.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths[0], "index.html");
    assert!(paths.contains(&"lessons/latency-throughput-slos/index.html"));
    assert!(paths.contains(&"404.html"));
    let home = page("index.html");
    assert!(home
        .body
        .contains("href=\"lessons/latency-throughput-slos/\""));
    assert!(home.body.contains("Latency, Throughput &amp; SLOs"));
    // Pages below the root find their assets through a base back to it.
    assert_eq!(lesson_page().base, Some("../../"));
    assert_eq!(page("404.html").base, Some("../../"));
}

#[test]
fn every_piece_of_prose_is_in_the_lesson_page_once() {
    let body = &lesson_page().body;
    for block in &lesson().blocks {
        if let Block::Html(html) = block {
            for range in top_level_fragments(html.as_str()) {
                // In-page links are rewritten to name the page (see below); compare without them.
                let fragment = html.as_str()[range]
                    .replace(" href=\"#", " href=\"lessons/latency-throughput-slos/#");
                assert_eq!(
                    body.matches(&fragment).count(),
                    1,
                    "not once: {fragment:.80}"
                );
            }
        }
    }
}

#[test]
fn in_page_links_name_the_lesson_page_so_the_base_does_not_send_them_home() {
    let body = &lesson_page().body;
    assert!(
        !body.contains(" href=\"#"),
        "an in-page link would resolve against the site root"
    );
    assert!(body.contains(" href=\"lessons/latency-throughput-slos/#the-knee\""));
}

#[test]
fn nothing_is_styled_inline_so_the_strict_policy_holds() {
    for page in &site().pages {
        assert!(
            !page.body.contains(" style=\""),
            "{} has an inline style",
            page.path
        );
        assert!(!page.body.contains("<script"), "{} has a script", page.path);
    }
}

#[test]
fn every_predict_step_is_an_island_whose_answer_reads_back_as_the_lessons() {
    let islands = tags_with(
        &lesson_page().body,
        &format!("{}=\"{}\"", markup::ISLAND, IslandKind::Predict.as_str()),
    );
    let steps = lesson().predict_steps();
    assert_eq!(islands.len(), steps.len());
    for (island, step) in islands.iter().zip(&steps) {
        assert_eq!(island[markup::STEP_ID], step.id);
        let options = match &step.answer {
            PredictAnswer::MultipleChoice { options } => options
                .iter()
                .map(|o| (o.label.clone(), o.explanation.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let answer = markup::decode_answer(|name| island.get(name).cloned(), options).unwrap();
        assert_eq!(answer, step.answer, "{}", step.id);
    }
}

#[test]
fn every_predict_answer_is_folded_in_a_closed_details() {
    let body = &lesson_page().body;
    for step in lesson().predict_steps() {
        let start = body.find(&format!("id=\"{}\"", step.id)).unwrap();
        let section = &body[start..start + body[start..].find("</section>").unwrap()];
        // The view writes the attributes in its own order (`class` last).
        let fold = section
            .find(markup::OPENABLE_ANSWER)
            .unwrap_or_else(|| panic!("{} has no folded answer", step.id));
        let fold = section[..fold].rfind('<').expect("inside a tag");
        let tag = &section[fold..fold + section[fold..].find('>').expect("the tag ends")];
        assert!(
            tag.starts_with("<details ")
                && tag.contains(" class=\"predict-answer\"")
                && !tag.contains(" open"),
            "{}: {tag}",
            step.id
        );
        let explanation = section.find("class=\"predict-explanation\"").unwrap();
        assert!(
            explanation > fold,
            "{}: the explanation is outside the fold",
            step.id
        );
        if section.contains("predict-correct") {
            assert!(
                section.find("predict-correct").unwrap() > fold,
                "{}",
                step.id
            );
        }
    }
}

#[test]
fn every_block_is_marked_with_its_screen_and_every_screen_with_its_title() {
    let body = &lesson_page().body;
    let screens = lesson_screens(lesson());
    let marked = tags_with(body, &format!("{}=\"", markup::SCREEN));
    let shown: std::collections::BTreeSet<usize> = marked
        .iter()
        .map(|tag| tag[markup::SCREEN].parse().unwrap())
        .collect();
    assert_eq!(
        shown,
        (0..screens.len()).collect(),
        "every screen has an element"
    );
    let titled = tags_with(body, &format!("{}=\"", markup::SCREEN_TITLE));
    let titles: Vec<&str> = titled
        .iter()
        .map(|tag| tag[markup::SCREEN_TITLE].as_str())
        .collect();
    let expected: Vec<&str> = screens.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, expected);
    // Speaker notes name the screens of their section.
    let notes = tags_with(body, &format!("{}=\"", markup::NOTES_FOR));
    assert!(!notes.is_empty());
    for tag in notes {
        assert!(!markup::decode_indices(&tag[markup::NOTES_FOR])
            .unwrap()
            .is_empty());
    }
}

#[test]
fn the_widgets_carry_their_settings_and_the_lab_draws_its_curves_as_pictures() {
    let islands = tags_with(
        &lesson_page().body,
        &format!("{}=\"{}\"", markup::ISLAND, IslandKind::Widget.as_str()),
    );
    let widgets = lesson().widgets();
    assert_eq!(islands.len(), widgets.len());
    for (island, widget) in islands.iter().zip(&widgets) {
        assert_eq!(island[markup::WIDGET], widget.name.as_str());
        assert_eq!(
            markup::decode_settings(&island[markup::SETTINGS]).unwrap(),
            widget.settings
        );
    }
    let assets: Vec<&str> = site().assets.iter().map(|a| a.path.as_str()).collect();
    for picture in [
        "pictures/latency-throughput-slos/knee-lab-latency-light.svg",
        "pictures/latency-throughput-slos/knee-lab-latency-dark.svg",
        "pictures/latency-throughput-slos/knee-lab-throughput-light.svg",
    ] {
        assert!(assets.contains(&picture), "no {picture} in {assets:?}");
        assert!(lesson_page().body.contains(picture) || picture.ends_with("dark.svg"));
    }
    for asset in &site().assets {
        assert!(asset.contents.starts_with("<svg"), "{}", asset.path);
        // The lab's curves are against offered load; the batch timeline is against time, slot by slot, and the
        // fleet's day against the minutes into it.
        let axis = if asset.path.contains("batch-timeline") {
            "time (s)"
        } else if asset.path.contains("fleet-widget") {
            "minutes into the day"
        } else {
            "offered load"
        };
        assert!(
            asset.contents.contains(axis),
            "{} has no {axis} axis",
            asset.path
        );
    }
    // The timeline's fallback: its picture at the lesson's settings, described by the chart's own summary, with the
    // followed request's story and the step-time formula beside it.
    let timeline = "pictures/latency-throughput-slos/batch-timeline-timeline-light.svg";
    assert!(assets.contains(&timeline));
    let body = &lesson_page().body;
    assert!(body.contains(timeline));
    assert!(body.contains("alt=\"At 90% load, chunked prefill on,"));
    assert!(body.contains("(from the slow tail) waited"));
    assert!(body.contains("step time = 5.5 ms + 12 µs × prefill tokens"));
}

#[test]
fn an_address_that_opens_on_the_lab_gets_its_first_screen_from_the_worker_as_the_build_drew_it() {
    // The head names the lab's anchor and carries its settings, for src/boot.js to read before the body arrives.
    let shown = lesson_page();
    let metas = tags_with(&shown.head, "name=\"goodput-lab-first\"");
    assert_eq!(metas.len(), 1, "{}", shown.head);
    let (id, settings) = (&metas[0]["content"], &metas[0][markup::SETTINGS]);
    assert_eq!(id, "knee-lab");
    let island = tags_with(&shown.body, &format!("{}=\"{id}\"", markup::WIDGET_ID));
    assert_eq!(&island[0][markup::SETTINGS], settings);
    // Its slider, hidden until the worker has drawn, starts at the lesson's load within the full lab's range.
    let slider = &tags_with(&shown.body, &format!("id=\"{id}-first-load\""))[0];
    assert_eq!(
        (
            &slider["type"][..],
            &slider["min"][..],
            &slider["max"][..],
            &slider["value"][..]
        ),
        ("range", "85", "100", "85")
    );
    assert!(shown
        .body
        .contains("<div class=\"lab-load lab-first\" hidden>"));
    // The worker's pictures say what the build's say: the same sweep, run to the end, at the same load.
    let mut lab = goodput::lab_view::EarlyLab::start(settings, "").unwrap();
    while !lab.converged() {
        lab.run_pass();
    }
    let drawn = lab
        .draw(None, "", (720, 360), goodput::charts::ChartTheme::Light, 1)
        .unwrap()
        .encode();
    for summary in [&drawn[6], &drawn[9]] {
        assert!(
            shown.body.contains(&format!("alt=\"{summary}\"")),
            "the static page has no picture saying {summary:?}"
        );
    }
    // Pages without a knee lab name none.
    assert!(!page("index.html").head.contains("goodput-lab-first"));
}
