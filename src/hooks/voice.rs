//! The one voice of the hooks in per-session scope: what the prompt hook
//! shows the user (`systemMessage`), composed from one value describing
//! the turn ([`Turn`]): the task in flight (this session's or an earlier
//! session's in this folder), a stale one, gk's pick for this prompt, and
//! Claude's `next` hint. The Stop, session and status lines take their
//! per-session words from here too ([`earlier_note`], [`stale_earlier`],
//! [`SHARED_NOTE`], [`session_earlier`]).
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
//! Global scope never gets here: it keeps v5's bytes (`super::prompt`).

use super::config::{Config, ModelRule};

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
            let whose = if *earlier {
                "an earlier session's task is in progress"
            } else {
                "task in progress"
            };
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
        lines.push(format!(
            "{lead}/model {} ({}; {})",
            p.command, p.label, p.why
        ));
        // With a task line above, the purpose would be a sixth line.
        if matches!(t.task, Task::Clear) {
            lines.push(format!(" Use for: {}", p.purpose));
        }
    }
    if let Some(e) = t.pick.as_ref().and_then(|p| p.effort) {
        lines.push(format!(" Effort : consider /effort {e}"));
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
            let whose = if *earlier {
                "An earlier session's task is in progress"
            } else {
                "Task in progress"
            };
            lines.push(format!("gk: {whose}: {words} (updated {age})."));
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn nothing_to_say_is_empty() {
        let t = Turn {
            check_header: None,
            task: Task::Clear,
            earlier_stale: None,
            pick: None,
            hint: None,
            notes: vec![],
        };
        assert_eq!(prompt_message(&t), "");
    }
}
