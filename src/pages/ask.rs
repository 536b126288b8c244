//! The Ask box at the end of a lesson, as static HTML: it reads, and says what it needs, without JavaScript; the
//! page's wasm (`goodput::components::ask`) enables it and answers.

use goodput::html_writer::HtmlWriter;
use goodput::lesson::ask_markup as ids;
use goodput::lesson::Lesson;

/// The Ask box of `lesson`.
pub fn ask_box(m: &mut HtmlWriter, lesson: &Lesson) {
    let attributes = [
        ("class", "ask"),
        ("id", ids::SECTION),
        ("aria-labelledby", "ask-heading"),
        (ids::LESSON_ATTRIBUTE, lesson.meta.slug.as_str()),
    ];
    m.element("section", &attributes, |m| {
        m.text_element("h2", &[("id", "ask-heading")], "Ask the teacher");
        m.text_element(
            "p",
            &[],
            "I'm your teacher: ask me anything about this lesson. I answer from the course itself, here in your \
             browser, and I work two kinds of question out rather than look them up: a Little's Law sizing (“30 QPS, \
             64 concurrent sequences, 8 s per request: how many replicas?”) and SLOs to start from for chat, RAG, \
             code completion, agents or batch jobs. Press A anywhere in the lesson to come back here.",
        );
        m.text_element(
            "p",
            &[("class", "no-js-only")],
            "The answers are worked out by JavaScript in your browser, which is off: everything they would quote \
             is in the lesson above.",
        );
        // Disabled until the wasm answers: without it the box would take a question and do nothing.
        m.element("form", &[("class", "ask-form"), ("id", ids::FORM)], |m| {
            m.text_element("label", &[("for", ids::QUESTION)], "Ask a question about this lesson");
            m.element("div", &[("class", "ask-row")], |m| {
                m.void(
                    "input",
                    &[
                        ("id", ids::QUESTION),
                        ("type", "text"),
                        ("autocomplete", "off"),
                        ("placeholder", "What is goodput?"),
                        ("disabled", ""),
                    ],
                );
                m.text_element("button", &[("type", "submit"), ("disabled", "")], "Ask");
            });
        });
        m.element("div", &[("class", "ask-answer"), ("id", ids::ANSWER), ("aria-live", "polite")], |_| {});
        model_box(m);
    });
}

/// "Ask your own model": the server's address, model and key, the buttons, and where the answer and its clocks go.
fn model_box(m: &mut HtmlWriter) {
    m.element("details", &[("class", "ask-model")], |m| {
        m.text_element("summary", &[], "Ask your own model");
        m.text_element(
            "p",
            &[],
            "If you run an OpenAI-compatible server, such as vLLM's vllm serve, it can answer the same question, \
             with the course's closest passages as context. Nothing is sent anywhere unless you fill in its address \
             below. The server must let this page read its replies: start vLLM with --allowed-origins and this \
             page's origin.",
        );
        let field = |m: &mut HtmlWriter, id: &str, label: &str, kind: &str, placeholder: &str, hint: &str| {
            let hint_id = format!("{id}-hint");
            m.element("div", &[("class", "ask-field")], |m| {
                m.text_element("label", &[("for", id)], label);
                m.void(
                    "input",
                    &[
                        ("id", id),
                        ("type", kind),
                        ("autocomplete", "off"),
                        ("spellcheck", "false"),
                        ("placeholder", placeholder),
                        ("aria-describedby", &hint_id),
                        ("disabled", ""),
                    ],
                );
                m.text_element("span", &[("class", "ask-hint"), ("id", &hint_id)], hint);
            });
        };
        field(
            m,
            ids::MODEL_URL,
            "Server base URL",
            "url",
            "http://localhost:8000/v1",
            "on this machine (http://localhost…) or any https: address",
        );
        field(m, ids::MODEL_NAME, "Model (optional)", "text", "the first the server lists", "as GET /v1/models names it");
        field(
            m,
            ids::MODEL_KEY,
            "API key (optional)",
            "password",
            "",
            "if the server was started with --api-key; kept in this page only, never stored",
        );
        m.element("div", &[("class", "ask-model-buttons")], |m| {
            m.text_element("button", &[("type", "button"), ("id", ids::MODEL_SEND), ("disabled", "")], "Ask my model");
            m.text_element("button", &[("type", "button"), ("id", ids::MODEL_STOP), ("disabled", "")], "Stop");
        });
        m.text_element(
            "p",
            &[("class", "ask-clocks-key")],
            "Its two clocks, measured here while it answers: TTFT is the wait until the first token, TPOT the time \
             per token after it.",
        );
        m.element("p", &[("class", "ask-clocks"), ("id", ids::MODEL_CLOCKS)], |_| {});
        m.element("p", &[("class", "ask-status"), ("id", ids::MODEL_STATUS), ("role", "status")], |_| {});
        m.element("div", &[("class", "ask-model-answer"), ("id", ids::MODEL_ANSWER)], |_| {});
    });
}
