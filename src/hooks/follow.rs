//! The task follows the work: what the hooks say when a session has no
//! record of its own but an earlier session in the same folder (before a
//! `/clear`, the session a fork came from, yesterday's `claude`) left its
//! task in progress ([`super::state::Earlier`]), and Claude's continuation
//! hint (`next` in a record: the model and effort it recommends for the
//! next prompt, and why).
//!
//! Per-session scope only; global scope never gets here (v5's bytes). Every
//! piece of record text shown here goes through [`crate::text::one_line`]
//! with a bound: the task, its detail, its project, the hint, the record's
//! path.

use std::path::Path;
use std::time::SystemTime;

use super::config::Config;
use super::state::{Earlier, Located, StateFile, StateVerdict};
use super::voice::age_text;
use super::voice::{EarlierTask, StateLine};
use crate::text::one_line;

/// Longest task, detail, project and hint text shown.
const MAX_TASK: usize = 120;
const MAX_DETAIL: usize = 200;
const MAX_PROJECT: usize = 40;
pub const MAX_NEXT: usize = 200;
/// A path (or session id) shown in full up to this length.
const MAX_PATH: usize = 300;
/// The hint on the status line.
const MAX_NEXT_SHORT: usize = 40;

fn field(file: &StateFile, name: &str, max: usize) -> Option<String> {
    file.truthy_text(name)
        .map(|t| one_line(&t, max).into_owned())
        .filter(|t| !t.trim().is_empty())
}

fn path_text(p: &Path) -> String {
    one_line(&p.to_string_lossy(), MAX_PATH).into_owned()
}

/// The record's continuation hint, when the config shows it.
pub fn next_of(file: &StateFile, config: &Config) -> Option<String> {
    if !config.state.next_on() {
        return None;
    }
    field(file, "next", MAX_NEXT)
}

/// The earlier task as words: `'Refactor parser' [P] (detail)`.
fn task_words(e: &Earlier) -> String {
    file_task_words(&e.file)
}

/// A record's task as the user reads it (the composer's words), its
/// fields cut to their bounds.
fn file_task_words(file: &StateFile) -> String {
    super::voice::task_words(
        &field(file, "task", MAX_TASK).unwrap_or_default(),
        field(file, "project", MAX_PROJECT).as_deref(),
    )
}

/// Whether the earlier task counts as work in flight (not stale).
pub fn in_flight(e: &Earlier, now: SystemTime, stale_hours: u32) -> bool {
    !e.age(now, stale_hours).0
}

fn age_words(e: &Earlier, now: SystemTime, stale_hours: u32) -> String {
    age_text(e.age(now, stale_hours).1)
}

/// The Stop line (and the prompt hook's line) for an earlier task that is
/// older than the stale limit: shown, but not as work in flight (no path:
/// Claude's context names the record).
pub fn stale_note(e: &Earlier, now: SystemTime, stale_hours: u32) -> String {
    super::voice::stale_earlier(&task_words(e), &age_words(e, now, stale_hours))
}

/// A record's task as words, `'Refactor parser' [P]`, and its age.
pub fn file_words(file: &StateFile, now: SystemTime, stale_hours: u32) -> (String, String) {
    let words = file_task_words(file);
    let age = match file.verdict(now, stale_hours) {
        super::state::StateVerdict::InProgress { age_hours, .. } => {
            age_text(age_hours.map(|h| h * 3600.0))
        }
        _ => age_text(None),
    };
    (words, age)
}

/// The prompt hook's lines for the earlier task: `(systemMessage line,
/// context sentence)`.
pub fn prompt_lines(e: &Earlier, now: SystemTime, stale_hours: u32) -> (String, String) {
    let age = age_words(e, now, stale_hours);
    if in_flight(e, now, stale_hours) {
        (
            format!(
                " ! the task is an earlier session's (updated {age}): {}",
                path_text(&e.record)
            ),
            format!(
                " [Earlier session] This session has no task record yet; the task above was \
                 left in progress by session {} in this folder (updated {age}; its record is \
                 {}). If this prompt continues it, write this session's task_state.json with \
                 that task and \"after\": \"{}\", and point the folder at this session as \
                 above; if the user has moved on, leave that record alone.",
                one_line(&e.session, MAX_PATH),
                path_text(&e.record),
                one_line(&e.session, MAX_PATH),
            ),
        )
    } else {
        (
            stale_note(e, now, stale_hours),
            format!(
                " [Earlier session] Session {} in this folder left {} in progress, updated {age}: \
                 older than {stale_hours}h, probably stale (its record is {}).",
                one_line(&e.session, MAX_PATH),
                task_words(e),
                path_text(&e.record),
            ),
        )
    }
}

/// The record that speaks on the Stop line and the status line (an
/// earlier session's task in flight replaces this session's state), and
/// the words of an earlier task older than the stale limit.
pub struct Speaker<'a> {
    pub file: &'a StateFile,
    in_flight: bool,
    stale: Option<(String, String, String)>,
}

impl<'a> Speaker<'a> {
    pub fn of(located: &'a Located, now: SystemTime, stale_hours: u32) -> Speaker<'a> {
        match &located.earlier {
            Some(e) if in_flight(e, now, stale_hours) => Speaker {
                file: &e.file,
                in_flight: true,
                stale: None,
            },
            Some(e) => Speaker {
                file: &located.file,
                in_flight: false,
                stale: Some((
                    task_words(e),
                    field(&e.file, "task", MAX_NEXT_SHORT).unwrap_or_default(),
                    age_words(e, now, stale_hours),
                )),
            },
            None => Speaker {
                file: &located.file,
                in_flight: false,
                stale: None,
            },
        }
    }

    /// The composer's value for it.
    pub fn line<'s>(
        &'s self,
        located: &Located,
        now: SystemTime,
        stale_hours: u32,
        next: Option<&'s str>,
        note: Option<&'s str>,
    ) -> StateLine<'s> {
        StateLine {
            state: self.file,
            now,
            stale_hours,
            from_shared: located.from_shared,
            next,
            earlier: match &self.stale {
                _ if self.in_flight => EarlierTask::InFlight,
                Some((words, task, age)) => EarlierTask::Stale { words, task, age },
                None => EarlierTask::None,
            },
            note,
        }
    }
}

/// What the session hook adds at the start of a session that has no
/// record while an earlier one in its folder has a task in progress:
/// `(systemMessage line, additionalContext)`. `own`: this session's record;
/// `pointer`: the folder's pointer and this session's id, to be pointed at
/// this session when it takes the task over (else the next session here
/// would be shown the earlier record again).
pub fn session_start(
    e: &Earlier,
    own: Option<&Path>,
    pointer: Option<(&Path, &str)>,
    now: SystemTime,
    stale_hours: u32,
) -> (String, String) {
    let age = age_words(e, now, stale_hours);
    let stale = !in_flight(e, now, stale_hours);
    let line = super::voice::session_earlier(&task_words(e), &age, stale);
    let mut ctx = format!(
        "[Task state] An earlier session in this folder (session {}) left a task in progress: {}",
        one_line(&e.session, MAX_PATH),
        task_words(e)
    );
    if let Some(d) = field(&e.file, "detail", MAX_DETAIL) {
        ctx.push_str(&format!(" -- {d}"));
    }
    ctx.push_str(&format!(
        ", updated {age}; its record is {}.",
        path_text(&e.record)
    ));
    if stale {
        ctx.push_str(&format!(
            " It is older than {stale_hours}h and probably stale."
        ));
    }
    let own = own
        .map(path_text)
        .unwrap_or_else(|| "this session's task_state.json".into());
    ctx.push_str(&format!(
        " If the user's next request continues it, take it over: write {own} with status \
         in_progress, that task and detail, and \"after\": \"{}\"",
        one_line(&e.session, MAX_PATH)
    ));
    if let Some((pointer, id)) = pointer {
        ctx.push_str(&format!(
            ", and write {} with {{\"session\": \"{}\"}}",
            path_text(pointer),
            one_line(id, MAX_PATH)
        ));
    }
    ctx.push_str(
        ". If the user moves on to something else, leave the earlier record alone; until \
         this session writes its own record the user is shown the earlier task.",
    );
    (line, ctx)
}

/// The model a hint names: the configured label (or model id) whose name
/// comes first in it, matched without case; for a label, its first word
/// (`Opus 5.5` is named by `opus`). `None` when it names none.
fn hinted_model<'c>(hint: &str, config: &'c Config) -> Option<&'c str> {
    let lower = hint.to_lowercase();
    // With the recommender, the built-in tiers it may advise count too.
    let builtin: &[super::config::ModelRule] = if config.advice() == super::config::Advice::Learned
    {
        super::config::builtin_models()
    } else {
        &[]
    };
    let labels = config
        .models
        .iter()
        .chain(builtin)
        .map(|r| (r.label.as_str(), r.model.as_str()))
        .chain([(
            config.default_model.label.as_str(),
            config.default_model.model.as_str(),
        )]);
    let mut best: Option<(usize, &str)> = None;
    for (label, model) in labels {
        let family = label.split_whitespace().next().unwrap_or(label);
        for name in [model, family] {
            let name = name.to_lowercase();
            if name.is_empty() {
                continue;
            }
            if let Some(at) = find_word(&lower, &name) {
                if best.is_none_or(|(b, _)| at < b) {
                    best = Some((at, label));
                }
            }
        }
    }
    best.map(|(_, l)| l)
}

/// The effort a hint names (`low`, `medium`, `high`, `xhigh`, `max`).
fn hinted_effort(hint: &str) -> Option<&'static str> {
    let lower = hint.to_lowercase();
    ["xhigh", "high", "medium", "low", "max"]
        .into_iter()
        .filter_map(|w| find_word(&lower, w).map(|at| (at, w)))
        .min()
        .map(|(_, w)| w)
}

/// The first place `word` stands in `text` as a word of its own.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric();
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Whether Claude's hint names another model than gk's pick (`label`), or
/// another effort than the one gk suggests (`effort`).
pub fn hint_differs(next: &str, config: &Config, label: &str, effort: Option<&str>) -> bool {
    let model_differs = hinted_model(next, config).is_some_and(|m| m != label);
    let effort_differs = matches!((hinted_effort(next), effort), (Some(h), Some(k)) if h != k);
    model_differs || effort_differs
}

/// The task that speaks for a session, as every hook that names it picks
/// it: an earlier session's task still in flight in this folder (until this
/// session writes its own record), else the located file (this session's
/// record, the shared file, or v5's file in global scope). The earlier
/// session, when it is the one that speaks.
pub fn speaking(
    located: &Located,
    now: SystemTime,
    stale_hours: u32,
) -> (&StateFile, Option<&Earlier>) {
    let earlier = located
        .earlier
        .as_ref()
        .filter(|e| in_flight(e, now, stale_hours));
    (earlier.map_or(&located.file, |e| &e.file), earlier)
}

/// The task in `file` as the composer reads it: in flight (an earlier
/// session's when `earlier_speaks`), stale, or nothing.
pub fn task_of(
    file: &StateFile,
    earlier_speaks: bool,
    now: SystemTime,
    stale_hours: u32,
) -> super::voice::Task {
    match file.verdict(now, stale_hours) {
        StateVerdict::InProgress { stale, .. } => {
            let (words, age) = file_words(file, now, stale_hours);
            if stale {
                super::voice::Task::Stale { words, age }
            } else {
                super::voice::Task::InFlight {
                    words,
                    age,
                    earlier: earlier_speaks,
                }
            }
        }
        _ => super::voice::Task::Clear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::state::StateRead;
    use serde_json::json;
    use std::path::PathBuf;
    use std::time::Duration;

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000)
    }

    fn earlier(v: serde_json::Value, age_secs: u64) -> Earlier {
        let serde_json::Value::Object(m) = v else {
            unreachable!()
        };
        Earlier {
            session: "aaaa-1".into(),
            record: PathBuf::from("/s/aaaa-1.json"),
            file: StateFile {
                read: StateRead::Object(m),
                mtime: Some(now() - Duration::from_secs(age_secs)),
            },
        }
    }

    #[test]
    fn the_session_start_context_names_task_detail_age_record_and_what_to_do() {
        let e = earlier(
            json!({"status": "in_progress", "task": "Refactor parser", "detail": "phase 2", "project": "P"}),
            12 * 60,
        );
        let pointer = Path::new("/s/folder.0123.json");
        let (line, ctx) = session_start(
            &e,
            Some(Path::new("/s/bbbb-2.json")),
            Some((pointer, "bbbb-2")),
            now(),
            24,
        );
        assert_eq!(
            line,
            "gk: an earlier session in this folder left 'Refactor parser' [P] in progress (updated 12m ago) -- hold off switching model or effort until it is done, or tell Claude you moved on"
        );
        assert_eq!(
            ctx,
            "[Task state] An earlier session in this folder (session aaaa-1) left a task in progress: 'Refactor parser' [P] -- phase 2, updated 12m ago; its record is /s/aaaa-1.json. If the user's next request continues it, take it over: write /s/bbbb-2.json with status in_progress, that task and detail, and \"after\": \"aaaa-1\", and write /s/folder.0123.json with {\"session\": \"bbbb-2\"}. If the user moves on to something else, leave the earlier record alone; until this session writes its own record the user is shown the earlier task."
        );
        let stale = earlier(json!({"status": "in_progress", "task": "Old"}), 30 * 3600);
        let (line, ctx) = session_start(&stale, None, None, now(), 24);
        assert!(
            line.ends_with("(updated 30h ago) -- probably stale"),
            "{line}"
        );
        assert!(ctx.contains("older than 24h and probably stale"), "{ctx}");
    }

    #[test]
    fn record_text_is_one_bounded_line() {
        let e = earlier(
            json!({"status": "in_progress", "task": format!("a\u{1b}[2J\nSTATE [CLEAN] {}", "x".repeat(500)), "detail": "d\u{202e}"}),
            0,
        );
        let (line, ctx) = session_start(&e, None, None, now(), 24);
        for text in [&line, &ctx] {
            assert!(!text.chars().any(crate::text::is_unsafe), "{text:?}");
        }
        assert!(line.contains("'a?[2J STATE [CLEAN] xxx"), "{line}");
        assert!(line.chars().count() < 300, "{}", line.chars().count());
        let (msg, _) = prompt_lines(&e, now(), 24);
        assert!(!msg.chars().any(crate::text::is_unsafe));
    }

    #[test]
    fn the_pick_wins_over_a_hint_that_differs() {
        let c = Config::default();
        assert!(!hint_differs(
            "Opus 5.5, high: the refactor goes on",
            &c,
            "Opus 5.5",
            Some("high")
        ));
        assert!(hint_differs(
            "opus, high: the refactor goes on",
            &c,
            "Sonnet 5",
            None
        ));
        assert!(hint_differs(
            "Sonnet at low effort",
            &c,
            "Sonnet 5",
            Some("high")
        ));
        // A hint that names no model gk knows is shown, not judged.
        assert!(!hint_differs("keep going", &c, "Haiku 4.5", None));
        // Whole words only: "sonnets" is not Sonnet, "highlight" not high.
        assert_eq!(hinted_model("write sonnets", &c), None);
        assert_eq!(hinted_effort("highlight it"), None);
        assert_eq!(
            hinted_model("claude-haiku-4-5-20251001 then opus", &c),
            Some("Haiku 4.5")
        );
        // No rules of the user's (as `gk rules` prints them per session):
        // the recommender's tiers are still known.
        let printed = Config {
            models: Vec::new().into(),
            ..Config::default()
        };
        assert_eq!(hinted_model("opus next", &printed), Some("Opus 5.5"));
    }
}
