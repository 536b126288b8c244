//! The live task list: its view ([`crate::views::tasks`]) ticked from the learner's progress.

use super::progress_store::use_progress;
use crate::lesson::TaskList;
use crate::views::tasks::TasksView;
use leptos::prelude::*;

/// The tasks, each ticked when a widget calls `use_progress().tick(id)`.
#[component]
pub fn TaskChecklist(list: TaskList) -> impl IntoView {
    let progress = use_progress();
    view! { <TasksView list ticked=move |id: &str| progress.is_ticked(id)/> }
}
