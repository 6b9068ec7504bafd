//! task_state.json as the hooks see it: missing or unreadable, no status,
//! a status that is neither `clean` nor `in_progress`, or `in_progress`
//! for longer than the stale threshold (age from the file's mtime, as the
//! hooks take it). Doctor reports what the hooks would, as findings.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use super::finding::{Finding, Group, Remedy, Severity, FIX_COMMAND};

/// Hours after which an `in_progress` state is called stale (seed §2.2).
pub const STALE_HOURS: f64 = 24.0;

/// What the hooks would make of the state file.
#[derive(Debug, Clone, PartialEq)]
pub enum StateReport {
    Missing,
    Unreadable(String),
    NoStatus,
    BadStatus(String),
    InProgress { hours: Option<f64>, stale: bool },
    Clean,
}

/// Pure: judge the file's bytes (or the read error) and its age.
pub fn assess(
    read: std::io::Result<Vec<u8>>,
    mtime: Option<SystemTime>,
    now: SystemTime,
) -> StateReport {
    let bytes = match read {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return StateReport::Missing,
        Err(e) => return StateReport::Unreadable(e.to_string()),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(_) => return StateReport::Unreadable("not valid UTF-8".to_string()),
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return StateReport::Unreadable(format!(
                "not JSON at line {} column {}",
                e.line(),
                e.column()
            ))
        }
    };
    let Some(obj) = value.as_object() else {
        return StateReport::Unreadable("not a JSON object".to_string());
    };
    match obj.get("status") {
        None => StateReport::NoStatus,
        Some(Value::String(s)) if s.is_empty() => StateReport::NoStatus,
        Some(Value::String(s)) if s == "clean" => StateReport::Clean,
        Some(Value::String(s)) if s == "in_progress" => {
            let hours = mtime
                .and_then(|m| now.duration_since(m).ok())
                .map(|d| d.as_secs_f64() / 3600.0)
                .or_else(|| {
                    obj.get("updated")
                        .and_then(|u| u.as_str())
                        .and_then(hours_since_updated)
                });
            StateReport::InProgress {
                hours,
                stale: hours.is_some_and(|h| h > STALE_HOURS),
            }
        }
        Some(Value::String(s)) => StateReport::BadStatus(s.clone()),
        Some(other) => StateReport::BadStatus(other.to_string()),
    }
}

/// Fallback age from the `updated` field (local time, as Claude writes it).
fn hours_since_updated(updated: &str) -> Option<f64> {
    let now = chrono::Local::now();
    let then = chrono::DateTime::parse_from_rfc3339(updated)
        .map(|d| d.with_timezone(&chrono::Local))
        .ok()
        .or_else(|| {
            chrono::NaiveDateTime::parse_from_str(updated, "%Y-%m-%dT%H:%M:%S")
                .ok()
                .and_then(|n| n.and_local_timezone(chrono::Local).single())
        })?;
    Some((now - then).num_seconds() as f64 / 3600.0)
}

/// Read and judge the state file at `path`.
pub fn assess_file(path: &Path, now: SystemTime) -> StateReport {
    let read = std::fs::read(path);
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    assess(read, mtime, now)
}

/// The finding for a report (none when the state is healthy).
pub fn finding(report: &StateReport, path: &Path) -> Option<Finding> {
    let shown = path.display();
    let f = match report {
        StateReport::Clean | StateReport::InProgress { stale: false, .. } => return None,
        StateReport::Missing => Finding::new(
            "state-unreadable",
            Severity::Warning,
            Group::State,
            format!("{shown} does not exist; the hooks report \"missing, assuming clean\" on every turn"),
        )
        .fix(format!("{FIX_COMMAND} (creates it in the clean form)"))
        .remedy(Remedy::StateFile),
        StateReport::Unreadable(why) => Finding::new(
            "state-unreadable",
            Severity::Warning,
            Group::State,
            format!("{shown} cannot be read ({why}); the hooks report \"unreadable, assuming clean\""),
        )
        .fix(format!(
            "rewrite it as {{\"status\": \"clean\", \"task\": \"\", \"detail\": \"\", \"project\": \"\", \"cwd\": \"\", \"updated\": \"\"}}, or delete it and run {FIX_COMMAND}"
        )),
        StateReport::NoStatus => Finding::new(
            "state-bad-status",
            Severity::Warning,
            Group::State,
            format!("{shown} has no status field; the hooks assume clean"),
        )
        .fix(format!("set \"status\" to \"clean\" or \"in_progress\" in {shown}")),
        StateReport::BadStatus(value) => Finding::new(
            "state-bad-status",
            Severity::Warning,
            Group::State,
            format!(
                "{shown} has status {}; only \"clean\" and \"in_progress\" mean anything, the hooks assume clean",
                shorten(value)
            ),
        )
        .fix(format!("set \"status\" to \"clean\" or \"in_progress\" in {shown}")),
        StateReport::InProgress { hours, stale: true } => Finding::new(
            "state-stale",
            Severity::Warning,
            Group::State,
            format!(
                "{shown} has said in_progress for {}h (more than {STALE_HOURS}h); it may have been left dirty",
                hours.map_or(0, |h| h as u64)
            ),
        )
        .fix(format!(
            "if the task is done, set \"status\" to \"clean\" in {shown} (or ask Claude to reset it)"
        )),
    };
    Some(f.at(path, None))
}

/// A status value as shown: quoted, at most 40 characters.
fn shorten(value: &str) -> String {
    let cut: String = value.chars().take(40).collect();
    let more = if value.chars().count() > 40 {
        "…"
    } else {
        ""
    };
    format!("'{cut}{more}'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ok(s: &str) -> std::io::Result<Vec<u8>> {
        Ok(s.as_bytes().to_vec())
    }

    #[test]
    fn each_shape_the_hooks_distinguish() {
        let now = SystemTime::now();
        let fresh = Some(now - Duration::from_secs(600));
        let old = Some(now - Duration::from_secs(25 * 3600));
        let nf = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(assess(Err(nf), None, now), StateReport::Missing);
        assert!(matches!(
            assess(ok("{nope"), fresh, now),
            StateReport::Unreadable(_)
        ));
        assert!(matches!(
            assess(ok("[1]"), fresh, now),
            StateReport::Unreadable(_)
        ));
        assert_eq!(assess(ok("{}"), fresh, now), StateReport::NoStatus);
        assert_eq!(
            assess(ok(r#"{"status":""}"#), fresh, now),
            StateReport::NoStatus
        );
        assert_eq!(
            assess(ok(r#"{"status":"in-progress"}"#), fresh, now),
            StateReport::BadStatus("in-progress".into())
        );
        assert_eq!(
            assess(ok(r#"{"status":"clean"}"#), old, now),
            StateReport::Clean
        );
        assert!(matches!(
            assess(ok(r#"{"status":"in_progress"}"#), fresh, now),
            StateReport::InProgress { stale: false, .. }
        ));
        assert!(matches!(
            assess(ok(r#"{"status":"in_progress"}"#), old, now),
            StateReport::InProgress { stale: true, .. }
        ));
    }

    #[test]
    fn codes_for_reports() {
        let p = Path::new("/h/.claude/hooks/task_state.json");
        assert!(finding(&StateReport::Clean, p).is_none());
        assert_eq!(
            finding(&StateReport::Missing, p).unwrap().code,
            "state-unreadable"
        );
        assert_eq!(
            finding(&StateReport::NoStatus, p).unwrap().code,
            "state-bad-status"
        );
        let stale = StateReport::InProgress {
            hours: Some(30.0),
            stale: true,
        };
        let f = finding(&stale, p).unwrap();
        assert_eq!(f.code, "state-stale");
        assert!(f.message.contains("30h"));
    }
}
