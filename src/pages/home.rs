//! The course home (the catalog of lessons) and the not-found page.

use super::frame::page_frame;
use super::Page;
use goodput::lesson::Lesson;

/// `index.html`: every lesson, in order, with its summary and time.
pub fn home_page(lessons: &[Lesson]) -> Page {
    let body = page_frame(|m| {
        m.element("section", &[("class", "home"), ("aria-labelledby", "home-title")], |m| {
            m.text_element(
                "h1",
                &[("id", "home-title")],
                "Inference engineering: latency, throughput and SLOs",
            );
            m.text_element(
                "p",
                &[("class", "home-intro")],
                "Interactive lessons for engineers who run LLM inference servers. Each lesson runs a real queue model in your browser: push the load, watch the tail.",
            );
            m.text_element("h2", &[], "Lessons");
            m.element("ul", &[("class", "lesson-list")], |m| {
                for lesson in lessons {
                    let meta = &lesson.meta;
                    m.element("li", &[("class", "lesson-card")], |m| {
                        m.element("a", &[("href", &format!("lessons/{}/", meta.slug))], |m| {
                            m.text_element("span", &[("class", "lesson-number")], &format!("Lesson {}", meta.number));
                            m.text_element("span", &[("class", "lesson-title")], &meta.title);
                        });
                        m.text_element("p", &[("class", "lesson-summary")], &meta.summary);
                        m.text_element("p", &[("class", "lesson-minutes")], &format!("About {} minutes", meta.minutes));
                    });
                }
            });
        });
    });
    Page {
        path: "index.html".into(),
        title: "goodput · an interactive course on LLM serving latency".into(),
        description: None,
        base: None,
        head: String::new(),
        kind: "home",
        body,
    }
}

/// `404.html`, for hosts that serve it at a missing address. Its base assumes the depth of a lesson's address
/// (`lessons/<slug>/`), the only deep address the site has, so a mistyped lesson still finds the stylesheets and
/// the way home.
pub fn not_found_page() -> Page {
    let body = page_frame(|m| {
        m.element("section", &[("class", "not-found")], |m| {
            m.text_element("h1", &[], "Page not found");
            m.element("p", &[], |m| {
                m.text("There is no lesson at this address. ");
                m.text_element("a", &[("href", "./")], "Go to the course home");
                m.text(" to see every lesson.");
            });
        });
    });
    Page {
        path: "404.html".into(),
        title: "Not found · goodput".into(),
        description: None,
        base: Some("../../"),
        head: String::new(),
        kind: "not-found",
        body,
    }
}
