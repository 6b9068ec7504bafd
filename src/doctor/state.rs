//! task_state.json and gk.json as the hooks see them. Reading and judging
//! is the hooks' own code (`crate::hooks::state::read_state` / `load_for_hooks`), so
//! doctor reports exactly what the STATE line would say: missing or
//! unreadable, no status, a status that is neither `clean` nor
//! `in_progress`, or `in_progress` longer than the stale limit.

use std::path::Path;

use crate::hooks::config::ConfigError;
use crate::hooks::state::StateVerdict;

use super::finding::{Code, Finding, FIX_COMMAND};
use crate::setup::parts::Part;

/// The finding for a verdict (none when the state is healthy).
pub fn finding(verdict: &StateVerdict, path: &Path, stale_hours: u32) -> Option<Finding> {
    let shown = path.display();
    let f = match verdict {
        StateVerdict::Clean { .. } | StateVerdict::InProgress { stale: false, .. } => return None,
        StateVerdict::Missing => Finding::new(
            Code::StateUnreadable,
            format!("{shown} does not exist; the hooks report \"missing, assuming clean\" on every turn"),
        )
        .fix(format!("{FIX_COMMAND} (creates it in the clean form)"))
        .fixed_by(Part::StateFile),
        StateVerdict::Unreadable { reason } => Finding::new(
            Code::StateUnreadable,
            format!("{shown} cannot be read ({reason}); the hooks report \"unreadable, assuming clean\""),
        )
        .fix(format!(
            "rewrite it as {{\"status\": \"clean\", \"task\": \"\", \"detail\": \"\", \"project\": \"\", \"cwd\": \"\", \"updated\": \"\"}}, or delete it and run {FIX_COMMAND}"
        )),
        StateVerdict::NoStatus => Finding::new(
            Code::StateBadStatus,
            format!("{shown} has no status field; the hooks assume clean"),
        )
        .fix(format!("set \"status\" to \"clean\" or \"in_progress\" in {shown}")),
        StateVerdict::BadStatus { value } => Finding::new(
            Code::StateBadStatus,
            format!(
                "{shown} has status {}; only \"clean\" and \"in_progress\" mean anything, the hooks assume clean",
                shorten(value)
            ),
        )
        .fix(format!("set \"status\" to \"clean\" or \"in_progress\" in {shown}")),
        StateVerdict::InProgress {
            age_hours,
            stale: true,
        } => Finding::new(
            Code::StateStale,
            format!(
                "{shown} has said in_progress for {}h (more than {stale_hours}h); it may have been left dirty",
                age_hours.map_or(0, |h| h as u64)
            ),
        )
        .fix(format!(
            "if the task is done, set \"status\" to \"clean\" in {shown} (or ask Claude to reset it)"
        )),
    };
    Some(f.at(path, None))
}

/// The verdict in words, for `gk doctor -v` ("in progress for 30 hours
/// (stale after 24)", "clean, written 2 hours ago").
pub fn describe(verdict: &StateVerdict, stale_hours: u32) -> String {
    let age = |hours: Option<f64>| match hours {
        None => "age unknown".to_string(),
        Some(h) if h < 1.0 => "less than an hour".to_string(),
        Some(h) => plural_hours(h),
    };
    match verdict {
        StateVerdict::Missing => "does not exist".to_string(),
        StateVerdict::Unreadable { reason } => format!("cannot be read ({reason})"),
        StateVerdict::NoStatus => "has no status field".to_string(),
        StateVerdict::BadStatus { value } => format!("has status {}", shorten(value)),
        StateVerdict::InProgress { stale, age_hours } => {
            let mut text = match age_hours {
                Some(_) => format!("in progress for {}", age(*age_hours)),
                None => "in progress (age unknown)".to_string(),
            };
            if *stale {
                text.push_str(&format!(" (stale after {stale_hours})"));
            }
            text
        }
        StateVerdict::Clean { age_hours: None } => "clean (age unknown)".to_string(),
        StateVerdict::Clean { age_hours } => format!("clean, written {} ago", age(*age_hours)),
    }
}

fn plural_hours(hours: f64) -> String {
    match hours as u64 {
        1 => "1 hour".to_string(),
        n => format!("{n} hours"),
    }
}

/// `config-invalid` for a gk.json the hooks cannot use.
pub fn config_finding(error: &ConfigError) -> Finding {
    let path = &error.path;
    let place = match error.position {
        Some((line, col)) => format!("{}:{line}:{col}", path.display()),
        None => path.display().to_string(),
    };
    let f = Finding::new(
        Code::ConfigInvalid,
        format!(
            "{place}: {}; the hooks ignore the file and use the built-in rules",
            error.reason
        ),
    )
    .at(path, error.position.map(|(l, _)| l));
    let f = match error.position {
        Some((_, col)) => f.column(col),
        None => f,
    };
    f.fix(format!(
        "correct {} by hand, or delete it to use the defaults (`gk rules` prints a valid starting point)",
        path.display()
    ))
}

/// A status value as shown: quoted, one line of at most 40 characters.
fn shorten(value: &str) -> String {
    format!("'{}'", crate::text::one_line(value, 40))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_for_verdicts() {
        let p = Path::new("/h/.claude/hooks/task_state.json");
        assert!(finding(&StateVerdict::Clean { age_hours: None }, p, 24).is_none());
        let fresh = StateVerdict::InProgress {
            stale: false,
            age_hours: Some(1.0),
        };
        assert!(finding(&fresh, p, 24).is_none());
        let missing = finding(&StateVerdict::Missing, p, 24).unwrap();
        assert_eq!(missing.code, Code::StateUnreadable);
        assert_eq!(missing.remedy, Some(Part::StateFile));
        let unreadable = StateVerdict::Unreadable {
            reason: "JSONDecodeError".into(),
        };
        assert!(finding(&unreadable, p, 24).unwrap().remedy.is_none());
        assert_eq!(
            finding(&StateVerdict::NoStatus, p, 24).unwrap().code,
            Code::StateBadStatus
        );
        let bad = StateVerdict::BadStatus {
            value: "in-progress".into(),
        };
        assert!(finding(&bad, p, 24)
            .unwrap()
            .message
            .contains("'in-progress'"));
        let stale = StateVerdict::InProgress {
            stale: true,
            age_hours: Some(30.5),
        };
        let f = finding(&stale, p, 24).unwrap();
        assert_eq!(f.code, Code::StateStale);
        assert!(f.message.contains("30h") && f.message.contains("24h"));
    }

    #[test]
    fn verdicts_in_words() {
        let words = |v: StateVerdict| describe(&v, 24);
        assert_eq!(words(StateVerdict::Missing), "does not exist");
        assert_eq!(
            words(StateVerdict::InProgress {
                stale: true,
                age_hours: Some(30.7)
            }),
            "in progress for 30 hours (stale after 24)"
        );
        assert_eq!(
            words(StateVerdict::InProgress {
                stale: false,
                age_hours: None
            }),
            "in progress (age unknown)"
        );
        assert_eq!(
            words(StateVerdict::Clean {
                age_hours: Some(0.2)
            }),
            "clean, written less than an hour ago"
        );
        assert_eq!(
            words(StateVerdict::Clean {
                age_hours: Some(1.5)
            }),
            "clean, written 1 hour ago"
        );
        assert_eq!(
            words(StateVerdict::BadStatus {
                value: "done".into()
            }),
            "has status 'done'"
        );
    }

    #[test]
    fn config_error_names_the_place() {
        let e = ConfigError {
            path: "/h/.claude/hooks/gk.json".into(),
            position: Some((3, 14)),
            reason: "expected a boolean".into(),
        };
        let f = config_finding(&e);
        assert_eq!(f.code, Code::ConfigInvalid);
        assert_eq!(f.line, Some(3));
        assert!(f
            .message
            .starts_with("/h/.claude/hooks/gk.json:3:14: expected a boolean"));
    }
}
