//! The one voice of the hooks in per-session scope: what the prompt hook
//! shows the user (`systemMessage`), composed from one value describing
//! the turn ([`Turn`]): the task in flight (this session's or an earlier
//! session's in this folder), a stale one, gk's pick for this prompt, and
//! Claude's `next` hint. The Stop line and the status line are made here
//! whole, in both scopes, from one value ([`StateLine`]: [`stop_message`],
//! [`status_line`]); the session line takes its per-session words from
//! here too ([`stale_earlier`], [`session_earlier`]).
//!
//! The rules it keeps (docs/hooks.md shows the messages):
//!
//! - a task in flight leads, with the one action: hold off switching until
//!   it is done; the pick is then worded for the next task;
//! - at most [`MAX_LINES`] lines for the user, one more when an earlier
//!   session's stale task is named;
//! - plain words and no file paths (Claude's `additionalContext` keeps the
//!   exact files);
//! - when Claude's hint names another model or effort than the pick, one
//!   line says which to use and why.
//!
//! The prompt hook in global scope never gets here: it keeps v5's bytes
//! (`super::prompt`); the Stop line keeps them through [`stop_message`].

use std::time::SystemTime;

use super::config::{Config, ModelRule};
use super::state::{
    StateFile, StateVerdict, DETAIL_CHARS, PROJECT_CHARS, STATUS_CHARS, TASK_CHARS,
};
use crate::text::one_line;

/// The most lines the prompt hook shows the user (header included), not
/// counting an earlier session's stale task, a gk.json note or a model's
/// warning.
pub const MAX_LINES: usize = 5;

/// What is in flight for this session, as the user is told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    /// Nothing in flight (clean, no task yet, or unreadable: gk assumes
    /// clean and says so to Claude only).
    Clear,
    /// A task in progress: its words (`'port the parser' [gk]`), how long
    /// ago it was updated, and whether an earlier session in this folder
    /// left it.
    InFlight {
        words: String,
        age: String,
        earlier: bool,
    },
    /// This session's task, in progress for longer than the stale limit.
    Stale { words: String, age: String },
}

/// gk's pick for this prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick<'a> {
    /// What to type after `/model` (a model id the client takes).
    pub command: &'a str,
    pub label: &'a str,
    /// Why, in a few words: `keyword 'x'`, `strongest sign: …`, `the default`.
    pub why: String,
    pub purpose: &'a str,
    pub effort: Option<&'a str>,
    pub warning: Option<&'a str>,
}

/// One turn, as the prompt hook sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn<'a> {
    /// `[check]` mode: the header says nothing will be executed.
    pub check_header: Option<&'a str>,
    pub task: Task,
    /// An earlier session's task older than the stale limit, as one line
    /// ([`stale_earlier`]).
    pub earlier_stale: Option<String>,
    /// `None`: the model is not shown (the config shows it only on a sign).
    pub pick: Option<Pick<'a>>,
    /// Claude's hint from the last turn, and whether it names another
    /// model or effort than the pick.
    pub hint: Option<(&'a str, bool)>,
    /// Lines gk adds about itself (gk.json ignored, a prompt cut).
    pub notes: Vec<&'a str>,
    /// The model and effort of the session's last reply, from its
    /// transcript (`None`: unknown). gk does not advise what the user is
    /// already on.
    pub current_model: Option<&'a str>,
    pub current_effort: Option<&'a str>,
}

/// The words of a model id or label that name its tier (`sonnet` in
/// `claude-sonnet-5-5`, `Sonnet 5`): the alphabetic ones, less `claude`.
fn tier_words(id: &str) -> impl Iterator<Item = String> + '_ {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic()))
        .map(|w| w.to_ascii_lowercase())
        .filter(|w| w != "claude")
}

/// Whether the model the last reply ran on (`current`, a model id) is the
/// tier of `pick`: a tier word of its id is one of the pick's id (or the
/// alias typed after `/model`) or the first word of its label. A different
/// version of the same tier counts as the same tier.
pub fn on_the_pick(current: &str, pick: &Pick<'_>) -> bool {
    let label_family = pick.label.split_whitespace().next().unwrap_or("");
    let picked: Vec<String> = tier_words(pick.command)
        .chain(tier_words(label_family))
        .collect();
    tier_words(current).any(|w| picked.contains(&w))
}

/// Whose task is in flight, as the prompt's line and the switch dialog say it.
fn whose(earlier: bool) -> &'static str {
    if earlier {
        "an earlier session's task is in progress"
    } else {
        "task in progress"
    }
}

/// The user's lines for a turn, joined; empty when there is nothing to say.
pub fn prompt_message(t: &Turn<'_>) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(MAX_LINES + 2);
    lines.push(format!("GATEKEEPER{}", t.check_header.unwrap_or("")));
    match &t.task {
        Task::Clear => {}
        Task::InFlight {
            words,
            age,
            earlier,
        } => {
            let whose = whose(*earlier);
            lines.push(format!(
                " ! {whose}: {words} (updated {age}) -- hold off switching model or effort until it is done"
            ));
        }
        Task::Stale { words, age } => lines.push(format!(
            " ! {words} is still marked in progress (updated {age}) -- probably done; ask Claude to mark it clean"
        )),
    }
    let in_flight = matches!(t.task, Task::InFlight { .. });
    if let Some(p) = t.pick.as_ref().filter(|p| !p.command.is_empty()) {
        let lead = if in_flight {
            " For the next task: "
        } else {
            " Model : "
        };
        if t.current_model.is_some_and(|m| on_the_pick(m, p)) {
            // Already on it: no `/model` to type, and no purpose to sell.
            lines.push(format!("{lead}the current model fits ({})", p.why));
        } else {
            lines.push(format!(
                "{lead}/model {} ({}; {})",
                p.command, p.label, p.why
            ));
            // With a task line above, the purpose would be a sixth line.
            if matches!(t.task, Task::Clear) {
                lines.push(format!(" Use for: {}", p.purpose));
            }
        }
    }
    if let Some(e) = t.pick.as_ref().and_then(|p| p.effort) {
        // Already at that effort: nothing to do.
        if !t.current_effort.is_some_and(|c| c.eq_ignore_ascii_case(e)) {
            lines.push(format!(" Effort : consider /effort {e}"));
        }
    }
    // The hint is judged against a pick only when one is shown.
    let shown_pick = t.pick.as_ref().is_some_and(|p| !p.command.is_empty());
    if let Some((hint, differs)) = t.hint {
        if differs && shown_pick {
            lines.push(format!(
                " Claude's hint: {hint} -- it differs; use the pick above (it reads this prompt) unless this prompt carries on Claude's plan"
            ));
        } else {
            lines.push(format!(" Claude's hint: {hint}"));
        }
    }
    if let Some(line) = &t.earlier_stale {
        lines.push(line.clone());
    }
    if let Some(w) = t.pick.as_ref().and_then(|p| p.warning) {
        lines.push(format!(" ! {w}"));
    }
    for n in &t.notes {
        lines.push(format!(" ! {n}"));
    }
    if lines.len() == 1 && t.check_header.is_none() {
        return String::new();
    }
    lines.join("\n")
}

/// The Stop line under a task in progress that an earlier session left.
pub const EARLIER_NOTE: &str =
    " ! left by an earlier session in this folder; Claude takes it over if you continue it";

/// The Stop line under a task in progress found in gk's single shared
/// task file (from before per-session state): no session wrote it.
pub const SHARED_NOTE: &str =
    " ! saved outside any session (an older setup); `gk state clean --shared` clears it";

/// A task as the user reads it: `'port the parser' [gk]` (the project
/// only when there is one). Both already cut to their bounds.
pub fn task_words(task: &str, project: Option<&str>) -> String {
    match project {
        Some(p) => format!("'{task}' [{p}]"),
        None => format!("'{task}'"),
    }
}

/// The line for an earlier session's task older than the stale limit.
pub fn stale_earlier(words: &str, age: &str) -> String {
    format!(" ! an earlier session in this folder left {words} in progress (updated {age}) -- probably stale")
}

/// The session line for an earlier session's task (`stale`: older than
/// the stale limit).
pub fn session_earlier(words: &str, age: &str, stale: bool) -> String {
    if stale {
        format!("gk: an earlier session in this folder left {words} in progress (updated {age}) -- probably stale")
    } else {
        format!(
            "gk: an earlier session in this folder left {words} in progress (updated {age}) -- \
             hold off switching model or effort until it is done, or tell Claude you moved on"
        )
    }
}

/// The cost of re-reading the conversation on the new model, when the
/// client says its cache is warm (see `super::switch_guard::read`).
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCost {
    /// The client's estimate, in US dollars.
    pub usd: f64,
    /// What the next request re-sends, when the count is plausible.
    pub tokens: Option<u64>,
}

/// A token count as the cost line says it: `180k`, `1.2M`, `900`.
fn tokens_text(tokens: u64) -> String {
    match tokens {
        t if t >= 1_000_000 => format!("{:.1}M", t as f64 / 1_000_000.0),
        t if t >= 1_000 => format!("{}k", t / 1_000),
        t => t.to_string(),
    }
}

/// Why gk asks before a switch (at most three short lines): the task and
/// its age, what switching mid-task risks, and the cost of re-caching when
/// the client gave one. The client shows it in its "Switch model?" dialog.
pub fn switch_reason(task: &Task, to: Option<&str>, cost: Option<&SwitchCost>) -> String {
    let mut lines = Vec::with_capacity(3);
    match task {
        Task::Clear => {}
        Task::InFlight {
            words,
            age,
            earlier,
        } => {
            // The same words as the prompt's line, as a sentence.
            let (first, rest) = whose(*earlier).split_at(1);
            lines.push(format!(
                "gk: {}{rest}: {words} (updated {age}).",
                first.to_uppercase()
            ));
        }
        Task::Stale { words, age } => lines.push(format!(
            "gk: {words} is still marked in progress (updated {age}; probably done)."
        )),
    }
    lines
        .push("Switching now hands half-done work to a model without the plan so far.".to_string());
    if let Some(c) = cost {
        let on = to.map(|t| format!(" on {t}")).unwrap_or_default();
        lines.push(match c.tokens {
            Some(t) => format!("~${:.2} to re-read {} tokens{on}.", c.usd, tokens_text(t)),
            None => format!("~${:.2} to re-read the conversation{on}.", c.usd),
        });
    }
    lines.join("\n")
}

/// The one line Claude gets after a switch mid-task: the model changed
/// during the task; re-read the record (its path, when the session has
/// one) before going on.
pub fn switch_context(
    task: &Task,
    from: Option<&str>,
    to: Option<&str>,
    record: Option<&std::path::Path>,
) -> String {
    let words = match task {
        Task::Clear => "",
        Task::InFlight { words, .. } | Task::Stale { words, .. } => words,
    };
    let from = from.unwrap_or("another model");
    let to = to.unwrap_or("this model");
    let record = match record {
        Some(p) => format!(
            "re-read the task record ({}) before going on",
            crate::text::one_line_ends(&p.to_string_lossy(), 300)
        ),
        None => "re-read the task state before going on".to_string(),
    };
    format!(
        "[Gatekeeper] The model changed from {from} to {to} during task {words}, which is still in progress: {record}, and carry on from its next step."
    )
}

/// The purpose shown for the built-in Opus tier the recommender picks in
/// per-session scope: the seed's words are about its author's ontology
/// work, which a new user does not do. (Global scope and the user's own
/// rules keep their words.)
pub const GENERAL_OPUS_PURPOSE: &str = "hard reasoning, design, tricky bugs, deep reviews";

/// The purpose to show for a rule the recommender picked.
pub fn purpose_for<'c>(rule: &'c ModelRule, config: &'c Config) -> &'c str {
    let users = config.rules().iter().any(|r| std::ptr::eq(r, rule));
    if rule.purpose == super::config::SEED_OPUS_PURPOSE && !users {
        GENERAL_OPUS_PURPOSE
    } else {
        &rule.purpose
    }
}

// ---------------------------------------------------------------------
// The Stop line and the status line: the state of the record that speaks
// (this session's, the shared one's, or an earlier session's in flight),
// in the same words in both places.

/// The note every hook adds when gk.json cannot be used, as one line of at
/// most `max` characters (the error may quote gk.json's own text).
pub fn config_note(error: &str, max: usize) -> String {
    let note = format!("gk config ignored, using the built-in defaults: {error}");
    one_line(&note, max).into_owned()
}

/// The Stop hook's words for an age in seconds (v5's buckets).
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

/// The Stop line, in per-session scope, for a session (it has an id) with
/// no record of its own while there is no shared record either.
pub const NO_RECORD_YET: &str =
    "STATE [CLEAN] no task recorded in this session yet -- safe to switch model or effort";

/// Longest task, project or status text on the status line.
const STATUS_FIELD_CHARS: usize = 40;

/// An earlier session's task in this folder, as the Stop line and the
/// status line name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlierTask<'a> {
    /// None (or the scope has none).
    None,
    /// In progress and not stale: its record is the one that speaks.
    InFlight,
    /// Older than the stale limit, named under this session's own state:
    /// `words` (`'task' [project]`), the task alone for the status line,
    /// and its age.
    Stale {
        words: &'a str,
        task: &'a str,
        age: &'a str,
    },
}

/// What the Stop line and the status line are made from.
pub struct StateLine<'a> {
    /// The record that speaks (an earlier session's when it is in flight).
    pub state: &'a StateFile,
    pub now: SystemTime,
    pub stale_hours: u32,
    /// Per-session scope and the record is gk's single shared task file
    /// (no session wrote it); with no record there, this session simply
    /// has none yet.
    pub from_shared: bool,
    /// Claude's continuation hint from the record that speaks.
    pub next: Option<&'a str>,
    pub earlier: EarlierTask<'a>,
    /// gk.json could not be used (the line says why).
    pub note: Option<&'a str>,
}

impl StateLine<'_> {
    fn shared(&self) -> bool {
        self.from_shared && self.earlier != EarlierTask::InFlight
    }
}

/// The Stop hook's `systemMessage`. Global scope gets v5's bytes: no
/// hint, no earlier session, no shared-record wording.
pub fn stop_message(s: &StateLine<'_>) -> String {
    let state = s.state;
    let shared = s.shared();
    let mut lines: Vec<String> = Vec::with_capacity(5);
    match state.verdict(s.now, s.stale_hours) {
        // Per session, a session that has not started a task has no
        // record: the normal case, not an unknown one.
        StateVerdict::Missing if shared => lines.push(NO_RECORD_YET.into()),
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
            if let Some(next) = s.next {
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
            if shared {
                lines.push(SHARED_NOTE.into());
            }
        }
        StateVerdict::Clean { age_hours } => {
            lines.push(format!(
                "STATE [CLEAN] safe to switch model or effort (updated {})",
                age_text(age_hours.map(|h| h * 3600.0))
            ));
            if let Some(next) = s.next {
                lines.push(format!(" Next: {next}"));
            }
        }
        StateVerdict::NoStatus => lines
            .push("STATE [UNKNOWN] task_state.json has no status field -- assuming clean".into()),
        StateVerdict::BadStatus { value } => lines.push(format!(
            "STATE [UNKNOWN] status='{}' -- expected clean or in_progress -- assuming clean",
            one_line(&value, STATUS_CHARS)
        )),
    }
    // The earlier session's task in flight is named right under it, before
    // gk's own note; a stale one comes last.
    if s.earlier == EarlierTask::InFlight {
        lines.push(EARLIER_NOTE.into());
    }
    if let Some(note) = s.note {
        lines.push(format!(" ! {note}"));
    }
    if let EarlierTask::Stale { words, age, .. } = s.earlier {
        lines.push(stale_earlier(words, age));
    }
    lines.join("\n")
}

/// A field as one short line: a newline would start a second status line,
/// an escape sequence would drive the terminal.
fn short(text: &str) -> std::borrow::Cow<'_, str> {
    one_line(text, STATUS_FIELD_CHARS)
}

/// The status line (one line, no newline at its end).
pub fn status_line(s: &StateLine<'_>) -> String {
    let state = s.state;
    let mut line = match state.verdict(s.now, s.stale_hours) {
        StateVerdict::Clean { .. } => "gk CLEAN".into(),
        StateVerdict::InProgress { stale, age_hours } => {
            let mut line = format!("gk DIRTY '{}'", short(&state.text("task")));
            if let Some(project) = state.truthy_text("project") {
                line.push_str(&format!(" [{}]", short(&project)));
            }
            line.push(' ');
            line.push_str(&age_text(age_hours.map(|h| h * 3600.0)));
            if stale {
                line.push_str(" (stale?)");
            }
            if s.shared() {
                line.push_str(" (older setup)");
            }
            line
        }
        // Per session: no task started in this session yet.
        StateVerdict::Missing if s.shared() => "gk CLEAN (no task yet)".into(),
        StateVerdict::Missing => "gk UNKNOWN (no task record)".into(),
        StateVerdict::Unreadable { reason } => {
            format!("gk UNKNOWN (task record unreadable: {})", short(&reason))
        }
        StateVerdict::NoStatus => "gk UNKNOWN (no status in the task record)".into(),
        StateVerdict::BadStatus { value } => format!("gk UNKNOWN (status '{}')", short(&value)),
    };
    match s.earlier {
        EarlierTask::None => {}
        EarlierTask::InFlight => line.push_str(" (earlier session)"),
        EarlierTask::Stale { task, age, .. } => {
            line.push_str(&format!(" | earlier '{}' {age} (stale?)", short(task)))
        }
    }
    if let Some(next) = s.next {
        line.push_str(&format!(" | next: {}", short(next)));
    }
    if s.note.is_some() {
        line.push_str(" ! gk.json ignored");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::state::StateRead;
    use serde_json::json;
    use std::time::Duration;

    fn pick() -> Pick<'static> {
        Pick {
            command: "claude-sonnet-5",
            label: "Sonnet 5",
            why: "the default".into(),
            purpose: "edits",
            effort: Some("high"),
            warning: None,
        }
    }

    #[test]
    fn a_task_in_flight_leads_and_the_pick_is_for_the_next_task() {
        let t = Turn {
            check_header: None,
            task: Task::InFlight {
                words: "'t'".into(),
                age: "5m ago".into(),
                earlier: false,
            },
            earlier_stale: Some(stale_earlier("'old'", "2d ago")),
            pick: Some(pick()),
            hint: Some(("Opus 5.5, high", true)),
            notes: vec![],
            current_model: None,
            current_effort: None,
        };
        let m = prompt_message(&t);
        let lines: Vec<&str> = m.lines().collect();
        assert!(lines[1].contains("hold off switching"), "{m}");
        assert!(
            lines[2].starts_with(" For the next task: /model claude-sonnet-5"),
            "{m}"
        );
        assert_eq!(lines.len(), MAX_LINES + 1, "{m}");
        assert!(!m.contains("Use for"), "{m}");
    }

    #[test]
    fn the_current_model_is_the_picks_tier_by_its_family_word() {
        let opus = Pick {
            command: "claude-opus-5-5",
            label: "Opus 5.5",
            ..pick()
        };
        for current in [
            "claude-opus-5-5",
            "claude-opus-4-1",
            "claude-opus-5-5[1m]",
            "opus",
        ] {
            assert!(on_the_pick(current, &opus), "{current}");
        }
        for current in ["claude-sonnet-5", "claude-haiku-4-5", "claude", "5-5", ""] {
            assert!(!on_the_pick(current, &opus), "{current}");
        }
        // A rule of the user's with an alias and a label of its own.
        let alias = Pick {
            command: "haiku",
            label: "Quick",
            ..pick()
        };
        assert!(on_the_pick("claude-haiku-4-5", &alias));
        assert!(!on_the_pick("claude-sonnet-5", &alias));
    }

    #[test]
    fn nothing_to_say_is_empty() {
        let t = Turn {
            check_header: None,
            task: Task::Clear,
            earlier_stale: None,
            pick: None,
            hint: None,
            notes: vec![],
            current_model: None,
            current_effort: None,
        };
        assert_eq!(prompt_message(&t), "");
    }

    fn status(state: &StateFile, now: SystemTime, stale_hours: u32, from_shared: bool) -> String {
        status_line(&StateLine {
            state,
            now,
            stale_hours,
            from_shared,
            next: None,
            earlier: EarlierTask::None,
            note: None,
        })
    }

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
            status(&dirty, now, 24, false),
            "gk DIRTY 'Writing bfsi-case.ttl' [BFSI] 12m ago"
        );
        let stale = file(json!({"status": "in_progress", "task": "t"}), 30 * 3600);
        assert_eq!(
            status(&stale, now, 24, true),
            "gk DIRTY 't' 30h ago (stale?) (older setup)"
        );
        assert_eq!(
            status(&file(json!({"status": "clean"}), 5), now, 24, false),
            "gk CLEAN"
        );
        let missing = StateFile {
            read: StateRead::Missing,
            mtime: None,
        };
        assert_eq!(
            status(&missing, now, 24, false),
            "gk UNKNOWN (no task record)"
        );
        let long = file(json!({"status": "in_progress", "task": "x".repeat(100)}), 0);
        let line = status(&long, now, 24, false);
        assert!(line.contains(&format!("'{}...'", "x".repeat(37))), "{line}");
        assert_eq!(
            status(&file(json!({"status": 5}), 0), now, 24, false),
            "gk UNKNOWN (status '5')"
        );
    }
}
