//! The batch timeline in words: its `aria-label`, the followed request's story and the data table beside it.

use super::{Activity, BatchTimeline, FollowedBar, WaitReason};
use crate::charts::format::{format_latency, format_number, format_percent};
use crate::charts::DataTable;

/// The timeline's `aria-label`, e.g. "At 99% load every slot is busy in 96% of iterations; request #4812 waited 1.9 s
/// for a slot, then prefilled in 3 chunks."
pub fn timeline_summary(data: &BatchTimeline) -> String {
    if let Some(note) = &data.note {
        return note.clone();
    }
    let load = format_percent(data.offered_load);
    if data.steps.is_empty() {
        return format!("At {load} load the replica ran no iteration in this window.");
    }
    let share = data.slots_full_share();
    let slots = if share >= 0.9995 {
        format!("every slot is busy in all {} iterations", data.steps.len())
    } else if share > 0.0 {
        format!(
            "every slot is busy in {} of iterations",
            format_percent((share * 100.0).round() / 100.0)
        )
    } else {
        format!(
            "no iteration fills all {} slots (on average {} are busy)",
            data.max_num_seqs,
            format_number(data.mean_busy_slots())
        )
    };
    let chunking = if data.chunked_prefill { "on" } else { "off" };
    let mut sentence = format!("At {load} load, chunked prefill {chunking}, {slots}");
    if let Some(f) = &data.followed {
        sentence += &format!("; request #{} {}", f.request, followed_story(f));
    }
    sentence += ".";
    let span = data.window.1 - data.window.0;
    let queue = match data.max_waiting() {
        0 => "none waits".to_owned(),
        most => format!("up to {most} requests wait"),
    };
    sentence += &format!(
        " Over these {:.1} s ({} iterations) {queue}",
        span,
        data.steps.len()
    );
    if let Some(longest) = data.longest_step() {
        sentence += &format!(
            "; the longest iteration takes {} with {} prefill tokens",
            format_latency(longest.end_s - longest.start_s),
            longest.prefill_tokens
        );
    }
    let preempted: u32 = data.steps.iter().map(|s| s.preempted).sum();
    if preempted > 0 {
        sentence += &format!("; {preempted} sequences are preempted");
    }
    if data.truncated {
        sentence += " (the window was cut short to keep the trace small)";
    }
    sentence + "."
}

/// The followed request's story as the widget and its static picture tell it: "Request #633 (from the slow tail)
/// waited 244 ms for a slot, then …".
pub fn followed_sentence(f: &FollowedBar) -> String {
    let tail = if f.from_the_tail {
        " (from the slow tail)"
    } else {
        ""
    };
    format!("Request #{}{tail} {}.", f.request, followed_story(f))
}

/// "waited 1.9 s for a slot, then prefilled in 3 chunks (TTFT 2.0 s) and decoded 57 more tokens at 38 ms each".
pub fn followed_story(f: &FollowedBar) -> String {
    let wait = if f.wait_s < 0.0005 {
        "was admitted at once".to_owned()
    } else {
        let why = match f.wait_reason {
            WaitReason::Slot => " for a slot",
            WaitReason::KvCache => " for room in the KV cache",
            WaitReason::EarlierPrompts => " behind earlier prompts",
            WaitReason::None => "",
        };
        format!("waited {}{why}", format_latency(f.wait_s))
    };
    let prefill = match f.chunks {
        0 => "has not prefilled yet".to_owned(),
        1 => format!(
            "prefilled its {}-token prompt in one iteration",
            f.prompt_tokens
        ),
        n => format!(
            "prefilled its {}-token prompt in {n} chunks",
            f.prompt_tokens
        ),
    };
    let mut story = format!("{wait}, then {prefill}");
    if let Some(ttft) = f.ttft_s() {
        story += &format!(" (TTFT {})", format_latency(ttft));
    }
    if f.preemptions > 0 {
        story += &match f.preemptions {
            1 => ", was preempted once and recomputed".to_owned(),
            n => format!(", was preempted {n} times and recomputed"),
        };
    }
    match (f.tpot_s(), f.finish_s) {
        (Some(tpot), Some(_)) => {
            story += &format!(
                " and decoded {} more tokens at {} each",
                f.output_tokens - 1,
                format_latency(tpot)
            );
        }
        (None, Some(_)) => story += "; its one token came with its prefill",
        _ => story += "; it had not finished when the run ended",
    }
    story
}

/// The timeline's data table: one row per iteration, with what a reader needs to check its length by the step-time
/// model, and what the followed request did in it.
pub fn timeline_table(data: &BatchTimeline) -> DataTable {
    let kv = data.kv_blocks.is_some();
    let mut header: Vec<String> = [
        "Iteration",
        "Start (s)",
        "Length (ms)",
        "Prefill tokens",
        "Decoding",
        "Context tokens",
        "Busy slots",
        "Waiting",
    ]
    .map(str::to_owned)
    .to_vec();
    if kv {
        header.push("KV cache in use".to_owned());
        header.push("Preempted".to_owned());
    }
    if let Some(f) = &data.followed {
        header.push(format!("Request #{}", f.request));
    }
    let rows = data
        .steps
        .iter()
        .map(|s| {
            let mut row = vec![
                s.number.to_string(),
                format!("{:.3}", s.start_s - data.window.0),
                format!("{:.1}", (s.end_s - s.start_s) * 1000.0),
                s.prefill_tokens.to_string(),
                s.decode_seqs.to_string(),
                s.context_tokens.to_string(),
                format!("{} of {}", s.busy_slots, data.max_num_seqs),
                s.waiting.to_string(),
            ];
            if kv {
                row.push(s.kv_usage.map_or("—".to_owned(), format_percent));
                row.push(s.preempted.to_string());
            }
            if data.followed.is_some() {
                row.push(match s.followed {
                    Some((activity @ (Activity::Prefill | Activity::Recompute), tokens)) => {
                        format!("{} {tokens}", activity.label())
                    }
                    Some((activity, _)) => activity.label().to_owned(),
                    None => "—".to_owned(),
                });
            }
            row
        })
        .collect();
    DataTable { header, rows }
}
