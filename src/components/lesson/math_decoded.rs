//! "Math, decoded": a formula and a legend of its symbols.

use crate::lesson::MathDecoded as MathDecodedData;
use leptos::prelude::*;

/// The formula in MathML with a definition list of its symbols.
#[component]
pub fn MathDecoded(math: &'static MathDecodedData) -> impl IntoView {
    let legend = math.legend.iter().map(|row| {
        view! {
            <dt inner_html=row.symbol.as_str()></dt>
            <dd inner_html=row.meaning.as_str()></dd>
        }
    });
    let note = math
        .note
        .as_ref()
        .map(|note| view! { <p class="math-note" inner_html=note.as_str()></p> });
    view! {
        <section class="lesson-math" aria-label="Math, decoded">
            <p class="lesson-label">"Math, decoded"</p>
            // Focusable: a wide formula scrolls sideways on a phone.
            <div class="math-formula" tabindex="0" inner_html=math.formula.as_str()></div>
            <dl class="math-legend">{legend.collect_view()}</dl>
            {note}
        </section>
    }
}
