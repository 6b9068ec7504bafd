//! `gk statusline`: one short line for Claude Code's `statusLine` command,
//! showing this session's task state. Claude Code runs it with a JSON
//! object on stdin (`session_id`, `cwd`, `model`, …) and shows the first
//! line it prints. Same rules as the hooks: no process, no write, nothing
//! on stderr, exit 0, one record read (two when the session has none).
//!
//! ```text
//! gk DIRTY 'Writing bfsi-case.ttl' [BFSI] 12m ago
//! gk CLEAN
//! gk UNKNOWN (no task record)
//! ```

use std::time::SystemTime;

use super::config::StateScope;
use super::state::{StateFile, StateVerdict};
use crate::console::Console;
use crate::env::Env;
use crate::paths::ClaudePaths;

/// Longest task or project text shown; a status line is short.
const MAX_FIELD_CHARS: usize = 40;

/// Print the line; always exit code 0 (a panic is caught, as in the hooks).
pub fn run(env: &Env, c: &mut Console<'_>) -> u8 {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let line = answer(env, c);
        let _ = c.out.write_all(line.as_bytes());
        let _ = c.out.flush();
    }));
    0
}

fn answer(env: &Env, c: &mut Console<'_>) -> String {
    let home = crate::paths::home_dir(env);
    let paths = ClaudePaths::resolve(env.var_os("CLAUDE_CONFIG_DIR"), home.clone());
    let (config, note) = super::hook_config(paths.as_ref());
    let event = match config.state.scope {
        StateScope::Global => {
            super::read_stdin(env, c, 0);
            None
        }
        StateScope::Session => {
            let input = super::read_stdin(env, c, super::input::MAX_EVENT_BYTES);
            super::event_of(&input).map(|(e, _)| e)
        }
    };
    let located = super::state_for(
        &config,
        paths.as_ref(),
        home.as_deref(),
        event.as_ref(),
        env,
    );
    let now = SystemTime::now();
    let earlier_in_flight = located
        .earlier
        .as_ref()
        .filter(|e| super::follow::in_flight(e, now, config.stale_hours));
    let file = earlier_in_flight.map_or(&located.file, |e| &e.file);
    let mut line = text(
        file,
        now,
        config.stale_hours,
        located.from_shared && earlier_in_flight.is_none(),
    );
    if let Some(e) = &located.earlier {
        line.push_str(&super::follow::statusline_suffix(
            e,
            now,
            config.stale_hours,
        ));
    }
    if let Some(next) = super::follow::next_of(file, &config) {
        line.push_str(&super::follow::statusline_next(&next));
    }
    if note.is_some() {
        line.push_str(" ! gk.json ignored");
    }
    line.push('\n');
    line
}

/// A field as one short line ([`crate::text::one_line`]): a newline would
/// start a second status line, an escape sequence would drive the terminal.
fn short(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::one_line(text, MAX_FIELD_CHARS)
}

/// The status line for a state (pure). `from_shared`: per-session scope,
/// and the state is the shared record's.
pub fn text(state: &StateFile, now: SystemTime, stale_hours: u32, from_shared: bool) -> String {
    match state.verdict(now, stale_hours) {
        StateVerdict::Clean { .. } => "gk CLEAN".into(),
        StateVerdict::InProgress { stale, age_hours } => {
            let mut line = format!("gk DIRTY '{}'", short(&state.text("task")));
            if let Some(project) = state.truthy_text("project") {
                line.push_str(&format!(" [{}]", short(&project)));
            }
            line.push(' ');
            line.push_str(&super::stop::age_text(age_hours.map(|h| h * 3600.0)));
            if stale {
                line.push_str(" (stale?)");
            }
            if from_shared {
                line.push_str(" (older setup)");
            }
            line
        }
        // Per session: no task started in this session yet.
        StateVerdict::Missing if from_shared => "gk CLEAN (no task yet)".into(),
        StateVerdict::Missing => "gk UNKNOWN (no task record)".into(),
        StateVerdict::Unreadable { reason } => {
            format!("gk UNKNOWN (task record unreadable: {})", short(&reason))
        }
        StateVerdict::NoStatus => "gk UNKNOWN (no status in the task record)".into(),
        StateVerdict::BadStatus { value } => format!("gk UNKNOWN (status '{}')", short(&value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::StateRead;
    use serde_json::json;
    use std::time::Duration;

    fn file(v: serde_json::Value, age_secs: u64) -> StateFile {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000);
        StateFile {
            read: match v {
                serde_json::Value::Object(m) => StateRead::Object(m),
                _ => unreachable!(),
            },
            mtime: Some(now - Duration::from_secs(age_secs)),
        }
    }

    #[test]
    fn one_short_line_per_state() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000);
        let dirty = file(
            json!({"status": "in_progress", "task": "Writing\nbfsi-case.ttl", "project": "BFSI"}),
            12 * 60,
        );
        assert_eq!(
            text(&dirty, now, 24, false),
            "gk DIRTY 'Writing bfsi-case.ttl' [BFSI] 12m ago"
        );
        let stale = file(json!({"status": "in_progress", "task": "t"}), 30 * 3600);
        assert_eq!(
            text(&stale, now, 24, true),
            "gk DIRTY 't' 30h ago (stale?) (older setup)"
        );
        assert_eq!(
            text(&file(json!({"status": "clean"}), 5), now, 24, false),
            "gk CLEAN"
        );
        let missing = StateFile {
            read: StateRead::Missing,
            mtime: None,
        };
        assert_eq!(
            text(&missing, now, 24, false),
            "gk UNKNOWN (no task record)"
        );
        let long = file(json!({"status": "in_progress", "task": "x".repeat(100)}), 0);
        let line = text(&long, now, 24, false);
        assert!(line.contains(&format!("'{}...'", "x".repeat(37))), "{line}");
        assert_eq!(
            text(&file(json!({"status": 5}), 0), now, 24, false),
            "gk UNKNOWN (status '5')"
        );
    }
}
