//! A chart's data table: folded in a `<details>` named by the chart's caption, in a region a keyboard can scroll
//! when the table is wider than a phone. The live canvas charts (`components::chart_canvas`) show it under the
//! canvas; the page build (the widgets' pictures) and the fleet's worker (its charts) render it to HTML.

use crate::charts::DataTable;
use leptos::html;
use leptos::prelude::*;

/// The table of the chart captioned `caption`. `table`: its rows (a live chart builds them only while the table is
/// `open`, which follows the `<details>`).
pub fn folded_table(caption: &str, table: Memo<DataTable>, open: RwSignal<bool>) -> impl IntoView {
    let details = NodeRef::<html::Details>::new();
    let toggled = move |_| {
        if let Some(details) = details.get_untracked() {
            open.set(details.open());
        }
    };
    let header = move || {
        table.with(|t| {
            t.header
                .iter()
                .map(|h| view! { <th scope="col">{h.clone()}</th> })
                .collect_view()
        })
    };
    let rows = move || {
        table.with(|t| {
            t.rows
                .iter()
                .map(|row| {
                    view! { <tr>{row.iter().map(|cell| view! { <td>{cell.clone()}</td> }).collect_view()}</tr> }
                })
                .collect_view()
        })
    };
    view! {
        <details class="chart-data" node_ref=details on:toggle=toggled>
            <summary>{format!("Data table: {caption}")}</summary>
            // Focusable so a keyboard can scroll a table wider than a phone.
            <div class="scroll-x" tabindex="0" role="region" aria-label=format!("{caption} data")>
                <table>
                    <thead><tr>{header}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </details>
    }
}

/// The table as HTML, for what renders without a live page: the pictures of the page build, the fleet worker's
/// charts.
pub fn folded_table_html(table: &DataTable, caption: &str) -> String {
    let table = table.clone();
    folded_table(
        caption,
        Memo::new(move |_| table.clone()),
        RwSignal::new(false),
    )
    .to_html()
}
