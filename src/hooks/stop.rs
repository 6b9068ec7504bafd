//! `gk hook stop` (Stop): the v5 state monitor. At the end of every turn it
//! shows the user the task state from task_state.json, so they know before
//! typing whether switching model or effort is safe. It prints
//! `systemMessage` only: anything else on Stop would make Claude go on.

use std::time::SystemTime;

use super::state::{
    StateFile, StateVerdict, DETAIL_CHARS, PROJECT_CHARS, STATUS_CHARS, TASK_CHARS,
};

/// The Stop hook's words for an age in seconds.
pub fn age_text(age_seconds: Option<f64>) -> String {
    let Some(secs) = age_seconds else {
        return "no valid timestamp".into();
    };
    let hours = secs / 3600.0;
    if secs < 0.0 {
        "timestamp in the future".into()
    } else if secs < 90.0 {
        "just now".into()
    } else if secs < 3600.0 {
        format!("{}m ago", (secs / 60.0).floor() as i64)
    } else if hours < 48.0 {
        format!("{}h ago", hours as i64)
    } else {
        format!("{}d ago", (hours / 24.0).floor() as i64)
    }
}

/// The line added, in per-session scope, when a task in progress comes
/// from the shared task file because this session has none of its own.
pub use super::voice::SHARED_NOTE;

/// The line, in per-session scope, for a session (it has an id) with no
/// record of its own while there is no shared record either.
pub const NO_RECORD_YET: &str =
    "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort";

/// The `systemMessage` for the state as read. `from_shared`: per-session
/// scope, and the state is the shared record's (then a task in progress
/// gets [`SHARED_NOTE`], and no shared record is [`NO_RECORD_YET`]). `next`: Claude's continuation hint, shown on a
/// line of its own under the task (per-session scope; `None` in global).
pub fn message(
    state: &StateFile,
    now: SystemTime,
    stale_hours: u32,
    config_note: Option<&str>,
    from_shared: bool,
    next: Option<&str>,
) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(4);
    match state.verdict(now, stale_hours) {
        // Per session, a session that has not started a task has no
        // record: the normal case, not an unknown one.
        StateVerdict::Missing if from_shared => lines.push(NO_RECORD_YET.into()),
        StateVerdict::Missing => {
            lines.push("STATE [UNKNOWN] task_state.json missing -- assuming clean".into())
        }
        StateVerdict::Unreadable { reason } => lines.push(format!(
            "STATE [UNKNOWN] task_state.json unreadable ({reason}) -- assuming clean"
        )),
        StateVerdict::InProgress { stale, age_hours } => {
            let when = age_text(age_hours.map(|h| h * 3600.0));
            let tag = state
                .truthy_shown("project", PROJECT_CHARS)
                .map(|p| format!(" [{p}]"))
                .unwrap_or_default();
            lines.push(format!(
                "STATE [DIRTY] task in progress: '{}'{tag} (updated {when})",
                state.shown("task", TASK_CHARS)
            ));
            if let Some(detail) = state.truthy_shown("detail", DETAIL_CHARS) {
                lines.push(format!(" {detail}"));
            }
            if let Some(next) = next {
                lines.push(format!(" Next: {next}"));
            }
            if let (true, Some(h)) = (stale, age_hours) {
                lines.push(format!(
                    " ! flagged in_progress for {}h -- may be stale. \
                     If the task is done, ask Claude to reset task_state.json.",
                    h as i64
                ));
            }
            lines.push(" ! Hold off switching model/effort until this task is complete".into());
            if from_shared {
                lines.push(SHARED_NOTE.into());
            }
        }
        StateVerdict::Clean { age_hours } => {
            lines.push(format!(
                "STATE [CLEAN] safe to switch model or effort (updated {})",
                age_text(age_hours.map(|h| h * 3600.0))
            ));
            if let Some(next) = next {
                lines.push(format!(" Next: {next}"));
            }
        }
        StateVerdict::NoStatus => lines
            .push("STATE [UNKNOWN] task_state.json has no status field -- assuming clean".into()),
        StateVerdict::BadStatus { value } => lines.push(format!(
            "STATE [UNKNOWN] status='{}' -- expected clean or in_progress -- assuming clean",
            crate::text::one_line(&value, STATUS_CHARS)
        )),
    }
    if let Some(note) = config_note {
        lines.push(format!(" ! {note}"));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_buckets() {
        let cases = [
            (None, "no valid timestamp"),
            (Some(-1.0), "timestamp in the future"),
            (Some(0.0), "just now"),
            (Some(89.9), "just now"),
            (Some(90.0), "1m ago"),
            (Some(3599.0), "59m ago"),
            (Some(3600.0), "1h ago"),
            (Some(47.9 * 3600.0), "47h ago"),
            (Some(48.0 * 3600.0), "2d ago"),
            (Some(73.0 * 3600.0), "3d ago"),
        ];
        for (age, want) in cases {
            assert_eq!(age_text(age), want, "{age:?}");
        }
    }
}
