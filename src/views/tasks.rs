//! A checklist of self-ticking tasks (`@tasks`): each item ticks itself when a widget records that the learner did
//! the thing. The pre-rendered list has nothing done.

use crate::lesson::island_markup::{TASK_LABEL_CLASS, TITLE_CLASS};
use crate::lesson::{Task, TaskList};
use leptos::prelude::*;

/// The tasks with their state, as text as well as a check mark; `ticked(task_id)` says whether a task is done
/// (reactive live, `|_| false` on the pre-rendered page).
#[component]
pub fn TasksView<T>(list: TaskList, ticked: T) -> impl IntoView
where
    T: Fn(&str) -> bool + Clone + Send + Sync + 'static,
{
    let TaskList { id, title, tasks } = list;
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();
    let total = tasks.len();
    let task_ids: Vec<String> = tasks.iter().map(|task| task.id.clone()).collect();
    let done = {
        let ticked = ticked.clone();
        move || task_ids.iter().filter(|id| ticked(id)).count()
    };
    let items = tasks.into_iter().map(move |Task { id, label }| {
        let is_ticked = {
            let ticked = ticked.clone();
            let id = id.clone();
            move || ticked(&id)
        };
        let mark = is_ticked.clone();
        let state = is_ticked.clone();
        view! {
            <li class="task" class:task-done=is_ticked data-task=id>
                <span class="task-mark" aria-hidden="true">{move || if mark() { "✓" } else { "○" }}</span>
                <span class=TASK_LABEL_CLASS inner_html=label.0></span>
                <span class="task-state">{move || if state() { " (done)" } else { " (not yet)" }}</span>
            </li>
        }
    });
    view! {
        <section class="lesson-tasks" id=id aria-labelledby=labelled_by>
            <p class="lesson-label">"Tasks · they tick themselves"</p>
            <h3 class=TITLE_CLASS id=title_id>{title}</h3>
            <ul class="task-list">{items.collect_view()}</ul>
            <p class="task-count" role="status">{move || format!("{} of {total} done.", done())}</p>
        </section>
    }
}
