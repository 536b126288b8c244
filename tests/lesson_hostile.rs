//! A contributed lesson cannot write page markup (issue 42): a formula's symbols, text and annotation are escaped,
//! so `$a<b$` keeps the markup whole and a formula written to close the MathML and open an `<input>` stays text.
//! The built lesson page then has exactly one Ask box field of each id, the box's own.

use goodput::lesson::{Block, Lesson};
use goodput_lesson_compiler::compile_lesson;
use goodput_pages::build_site;

#[path = "support/sample_lesson.rs"]
mod sample_lesson;
use sample_lesson::{FILE, FRONT_MATTER};

/// The formula that, unescaped, closed the annotation and the MathML and added an input with the Ask box's id.
const INJECTION: &str = r#"r</annotation></semantics></math><input id=ask-model-url value="https://attacker.example/v1">"#;

/// Every tag the compiler may write for prose and math: HTML's prose tags and MathML's.
const TAGS: &[&str] = &[
    "p",
    "span",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "del",
    "sup",
    "div",
    "br",
    "hr",
    "img",
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mo",
    "mn",
    "msup",
    "msub",
    "msubsup",
    "mfrac",
    "msqrt",
    "mroot",
    "mtext",
    "mspace",
    "mover",
    "munder",
    "munderover",
    "mstyle",
    "mpadded",
    "mphantom",
    "mtable",
    "mtr",
    "mtd",
    "menclose",
];

fn compiled(body: &str) -> Lesson {
    compile_lesson(FILE, &format!("{FRONT_MATTER}{body}")).unwrap_or_else(|e| panic!("{e}"))
}

fn prose(lesson: &Lesson) -> String {
    lesson
        .blocks
        .iter()
        .filter_map(|block| match block {
            Block::Html(html) => Some(html.0.clone()),
            _ => None,
        })
        .collect()
}

/// The tag names `html` opens or closes; a `<` that opens none must not be there at all.
fn tags(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in html.match_indices('<') {
        let rest = html[at + 1..].trim_start_matches('/');
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(!name.is_empty(), "a bare `<` in the markup: {html}");
        found.push(name.to_ascii_lowercase());
    }
    found
}

fn assert_only_prose_tags(html: &str) {
    for tag in tags(html) {
        assert!(
            TAGS.contains(&tag.as_str()),
            "<{tag}> in the lesson's markup: {html}"
        );
    }
}

#[test]
fn a_less_than_sign_in_a_formula_is_escaped_and_the_markup_stays_whole() {
    let html = prose(&compiled("When $a<b$ and $$x > y \\& z$$ hold.\n"));
    assert_only_prose_tags(&html);
    assert!(html.contains("<mo>&lt;</mo>"), "{html}");
    assert!(
        html.contains("<annotation encoding=\"application/x-tex\">a&lt;b</annotation>"),
        "{html}"
    );
    assert!(html.contains("x &gt; y \\&amp; z"), "{html}");
    assert_eq!(
        html.matches("<math").count(),
        html.matches("</math>").count()
    );
}

#[test]
fn a_formula_cannot_close_the_math_and_add_an_element() {
    for body in [
        format!("Here ${INJECTION}$ ends.\n"),
        format!("$$\n{INJECTION}\n$$\n"),
        "A $\\text{</mtext></math><script>alert(1)</script>}$ text.\n".to_owned(),
        "An $\\operatorname{<img src=x onerror=alert(1)>}$ name.\n".to_owned(),
        "A \"quote\" $\\text{\" onmouseover=\"alert(1)}$.\n".to_owned(),
    ] {
        let html = prose(&compiled(&body));
        assert_only_prose_tags(&html);
        for forged in ["<input", "<script", "<img", "onmouseover=\""] {
            assert!(!html.contains(forged), "{forged} from {body:?}: {html}");
        }
    }
}

#[test]
fn a_formula_with_the_escapes_own_stand_ins_is_refused() {
    let error = compile_lesson(FILE, &format!("{FRONT_MATTER}A $x\u{E001}y$.\n")).unwrap_err();
    assert!(
        error.message.contains("private-use character U+E001"),
        "{error}"
    );
}

#[test]
fn the_built_page_has_one_ask_box_field_of_each_id_whatever_a_formula_says() {
    let lessons: &'static [Lesson] = Box::leak(Box::new([compiled(&format!(
        "## Sizing\n\nThe address ${INJECTION}$ and $$\n{INJECTION}\n$$\n"
    ))]));
    let site = build_site(lessons).unwrap_or_else(|e| panic!("{e}"));
    let page = site
        .pages
        .iter()
        .find(|page| page.path == "lessons/sample/index.html")
        .expect("the lesson's page");
    for id in [
        "ask",
        "ask-model-url",
        "ask-model-key",
        "ask-model-name",
        "ask-question",
    ] {
        assert_eq!(
            page.body.matches(&format!("id=\"{id}\"")).count(),
            1,
            "{id}"
        );
    }
    let lesson_part = &page.body[..page.body.find("</article>").expect("the lesson's article")];
    assert!(
        !lesson_part.contains("<input"),
        "an input in the lesson's text"
    );
    assert!(
        lesson_part.contains("&lt;input id=ask-model-url"),
        "the formula shows as written"
    );
}
