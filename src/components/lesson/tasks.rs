//! A checklist of self-ticking tasks (`@tasks`): each item ticks itself when a widget calls
//! `use_progress().tick(id)`, because the learner actually did the thing.

use super::progress_store::use_progress;
use crate::lesson::island_markup::TASK_LABEL_CLASS;
use crate::lesson::TaskList;
use leptos::prelude::*;

/// The tasks with their ticked state, as text as well as a check mark.
#[component]
pub fn TaskChecklist(list: &'static TaskList) -> impl IntoView {
    let progress = use_progress();
    let title_id = format!("{}-title", list.id);
    let labelled_by = title_id.clone();
    let done = move || {
        list.tasks
            .iter()
            .filter(|task| progress.is_ticked(&task.id))
            .count()
    };
    let items = list.tasks.iter().map(move |task| {
        let ticked = move || progress.is_ticked(&task.id);
        view! {
            <li class="task" class:task-done=ticked data-task=task.id.as_str()>
                <span class="task-mark" aria-hidden="true">{move || if ticked() { "✓" } else { "○" }}</span>
                <span class=TASK_LABEL_CLASS inner_html=task.label.as_str()></span>
                <span class="task-state">{move || if ticked() { " (done)" } else { " (not yet)" }}</span>
            </li>
        }
    });
    view! {
        <section class="lesson-tasks" id=list.id.as_str() aria-labelledby=labelled_by>
            <p class="lesson-label">"Tasks · they tick themselves"</p>
            <h3 id=title_id>{list.title.as_str()}</h3>
            <ul class="task-list">{items.collect_view()}</ul>
            <p class="task-count" role="status">{move || format!("{} of {} done.", done(), list.tasks.len())}</p>
        </section>
    }
}
