//! task_state.json as the hooks see it. Claude writes the file (per the Task
//! State Convention in CLAUDE.md); the hooks only read it. Reading is split
//! from judging so `gk doctor` can report the state exactly as the hooks
//! would: `read_state` does the one read (and the mtime), `StateFile::verdict`
//! is a pure function of what was read and the current time.

use std::path::{Path, PathBuf};

use super::config::StateScope;
use std::time::SystemTime;

use chrono::{DateTime, FixedOffset, Local, NaiveDate, NaiveDateTime, TimeZone};
use serde_json::{Map, Value};

use super::input::parse_lenient;
use super::pytext::{py_str, truthy};

/// Why no folder can be made at `dir` where it is, if none can (only
/// looked at, nothing asked or written: [`crate::bounded::nearest_folder`]):
/// a file or a link to nothing in its place or on its path, or no drive.
/// Claude's every record write would fail there: install refuses to grant
/// it, doctor's `--fix` adds no rule for it, and the session check says so
/// at the start of every session.
pub fn cannot_be_made(dir: &Path) -> Option<String> {
    let (at, e) = crate::bounded::nearest_folder(&dir.join("record.json")).err()?;
    let shown = |p: &Path| crate::text::one_line(&p.display().to_string(), 1_000).into_owned();
    let why = crate::bounded::in_the_way(&e)
        .unwrap_or_else(|| format!("cannot be read ({})", crate::bounded::io_reason(&e)));
    Some(if at == dir {
        format!("the state folder {} {why}", shown(dir))
    } else {
        format!(
            "the state folder {} cannot be made: {} {why}",
            shown(dir),
            shown(&at)
        )
    })
}

/// What reading task_state.json gave.
#[derive(Debug, Clone, PartialEq)]
pub enum StateRead {
    /// No such file.
    Missing,
    /// The file could not be read or parsed. The reason is named the way the
    /// Python Stop hook names it (`JSONDecodeError`, `IsADirectoryError`, …)
    /// so messages stay the same; `not a JSON object` is gk's own.
    Unreadable(String),
    /// A JSON object.
    Object(Map<String, Value>),
}

/// One read of task_state.json: its content and its modification time.
#[derive(Debug, Clone, PartialEq)]
pub struct StateFile {
    pub read: StateRead,
    pub mtime: Option<SystemTime>,
}

/// What the hooks report about the state (as the Stop hook words it).
#[derive(Debug, Clone, PartialEq)]
pub enum StateVerdict {
    Missing,
    Unreadable {
        reason: String,
    },
    /// The file parses but `status` is absent or empty.
    NoStatus,
    /// `status` is neither `clean` nor `in_progress`; the value as shown.
    BadStatus {
        value: String,
    },
    InProgress {
        /// Older than the stale limit.
        stale: bool,
        /// `None` when no age could be worked out.
        age_hours: Option<f64>,
    },
    Clean {
        age_hours: Option<f64>,
    },
}

/// The most characters of a record's `task` the hooks show: a task is a
/// short title ("Refactor parser (phase 2)"); 200 is several of those.
pub const TASK_CHARS: usize = 200;
/// The most of `detail`: a sentence or two on where the work stands.
pub const DETAIL_CHARS: usize = 500;
/// The most of `project`: a name.
pub const PROJECT_CHARS: usize = 100;
/// The most of an unexpected `status` value quoted back.
pub const STATUS_CHARS: usize = 100;

/// The most of a record gk reads to replace or remove it (`gk state
/// clean`, `prune`, install's move of the shared record).
pub const MAX_STATE_BYTES: u64 = 4 << 20;

/// The most of a record the hooks, the status line, `gk state` and doctor
/// read to show it; a larger one reads as unreadable ("larger than 64
/// KiB"). The record Claude writes is a few hundred bytes. Parsing is what
/// costs: a 4 MiB record of 190,000 keys took 85-105 ms per hook call
/// (against 1.5 ms), which at 64 KiB (about 5,000 keys) is a few
/// milliseconds at worst.
pub const MAX_SHOWN_STATE_BYTES: u64 = 64 << 10;

/// Read `path` (never writes). A UTF-8 BOM is accepted. Only a regular file
/// is read (a folder reads as the Python hook reports it): the file is
/// opened without blocking and checked on the open handle, so a named pipe
/// put there (even between a check and the open) cannot block the hook,
/// and a device such as /dev/zero is never read.
pub fn read_state(path: &Path) -> StateFile {
    judge_read(crate::bounded::read(path, MAX_SHOWN_STATE_BYTES), false)
}

/// Read one session's record: as [`read_state`], except that a symbolic
/// link is not followed (it reads as `not a regular file`) and a state
/// folder that is missing or is a file counts as "no record".
pub fn read_record(path: &Path) -> StateFile {
    judge_read(
        crate::bounded::read_no_link(path, MAX_SHOWN_STATE_BYTES),
        true,
    )
}

fn judge_read(
    read: Result<crate::bounded::Contents, crate::bounded::ReadError>,
    no_folder_is_missing: bool,
) -> StateFile {
    use crate::bounded::ReadError;
    let unreadable = |why: String| StateFile {
        read: StateRead::Unreadable(why),
        mtime: None,
    };
    let missing = StateFile {
        read: StateRead::Missing,
        mtime: None,
    };
    match read {
        Ok(c) => StateFile {
            read: parse_state_bytes(&c.bytes),
            mtime: c.mtime,
        },
        Err(ReadError::NotFound) => missing,
        Err(ReadError::Io(error))
            if no_folder_is_missing && error.kind() == std::io::ErrorKind::NotADirectory =>
        {
            missing
        }
        Err(ReadError::Folder) => unreadable("IsADirectoryError".into()),
        Err(ReadError::NotRegular(_)) => unreadable("not a regular file".into()),
        Err(e @ ReadError::TooLarge { .. }) => unreadable(e.reason()),
        Err(ReadError::Io(error)) => unreadable(io_error_name(&error).into()),
    }
}

/// The state the hooks report for one event, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub file: StateFile,
    /// Per-session scope: this session's record, which the prompt hook names
    /// to Claude (whether or not it exists yet). `None` in global scope or
    /// when the event carries no usable session id.
    pub record: Option<PathBuf>,
    /// Per-session scope: this session (it has an id) has no record yet, so
    /// `file` is the shared one.
    pub from_shared: bool,
    /// Per-session scope, the session's folder known: the folder's pointer
    /// file (see [`crate::paths::folder_pointer_name`]), which the prompt
    /// hook asks Claude to write beside its record.
    pub pointer: Option<PathBuf>,
    /// This session has no record, and the last session to start work in
    /// the same folder left its task in progress.
    pub earlier: Option<Earlier>,
}

/// A task left in progress by an earlier session in the same folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Earlier {
    /// That session's id, as the pointer names it.
    pub session: String,
    /// Its record.
    pub record: PathBuf,
    pub file: StateFile,
}

impl Earlier {
    /// `(stale, age in seconds)`: older than the stale limit, and how old.
    pub fn age(&self, now: SystemTime, stale_hours: u32) -> (bool, Option<f64>) {
        match self.file.verdict(now, stale_hours) {
            StateVerdict::InProgress { stale, age_hours } => (stale, age_hours.map(|h| h * 3600.0)),
            _ => (false, None),
        }
    }
}

/// The most of a folder's pointer file the hooks read: it holds one
/// session id (`{"session": "<id>"}`).
pub const MAX_POINTER_BYTES: u64 = 4 << 10;

/// Decide which file speaks for this session, and read it (one read, two
/// when the session has no record yet, two more when it also has a folder).
///
/// - Global scope: the shared file (`<claude dir>/hooks/task_state.json`),
///   nothing else, as v5.
/// - Per-session scope: this session's record
///   (`<state folder>/<record_file_name(session_id)>`) whenever it exists,
///   whatever it holds: a corrupt record reads as unreadable, it is not
///   passed over. Only when there is no record (or no session id) is the
///   shared file read, as v5 reads it, so a state written by hand or by
///   the Python hooks is never silently dropped. Then, when the session's
///   folder is known (`folder`, a [`crate::paths::folder_key`]), the
///   folder's pointer is read and, when it names another session, that
///   session's record: in progress, it is [`Located::earlier`].
pub fn locate(
    os: crate::platform::Os,
    scope: StateScope,
    session_id: Option<&str>,
    state_dir: Option<&Path>,
    shared: Option<&Path>,
    folder: Option<&str>,
) -> Located {
    let shared_file = || match shared {
        Some(p) => read_state(p),
        None => StateFile {
            read: StateRead::Missing,
            mtime: None,
        },
    };
    let (record, pointer) = match scope {
        StateScope::Global => (None, None),
        StateScope::Session => (
            state_dir
                .zip(session_id.and_then(crate::paths::record_file_name))
                .map(|(dir, name)| dir.join(name)),
            state_dir
                .zip(folder.and_then(crate::paths::folder_pointer_name))
                .map(|(dir, name)| dir.join(name)),
        ),
    };
    if let Some(path) = &record {
        let own = read_record(path);
        if own.read != StateRead::Missing {
            return Located {
                file: own,
                record,
                from_shared: false,
                pointer,
                earlier: None,
            };
        }
    }
    let earlier = match (state_dir, &pointer, folder) {
        (Some(dir), Some(p), Some(folder)) => earlier_in(os, dir, p, folder, record.as_deref()),
        _ => None,
    };
    Located {
        file: shared_file(),
        from_shared: record.is_some(),
        record,
        pointer,
        earlier,
    }
}

/// The task the folder's pointer leads to, when it is another session's
/// and in progress (pure but for the two bounded reads, neither following
/// a link). `folder` is the key the pointer is named by
/// ([`crate::paths::folder_key`]). Anyone may write the state folder, so
/// the pointer is trusted only so far: its id must be a plain session id
/// ([`crate::paths::is_plain_session_id`]: it is shown to the user and
/// quoted to Claude), and a record whose `cwd` names another folder (not
/// this one or one below it) is another project's task, not this folder's.
fn earlier_in(
    os: crate::platform::Os,
    dir: &Path,
    pointer: &Path,
    folder: &str,
    own: Option<&Path>,
) -> Option<Earlier> {
    let bytes = crate::bounded::read_no_link(pointer, MAX_POINTER_BYTES)
        .ok()?
        .bytes;
    let StateRead::Object(map) = parse_state_bytes(&bytes) else {
        return None;
    };
    let session = map.get("session")?.as_str()?;
    if !crate::paths::is_plain_session_id(session) {
        return None;
    }
    let record = dir.join(crate::paths::record_file_name(session)?);
    if Some(record.as_path()) == own {
        return None;
    }
    let file = read_record(&record);
    if !works_in(os, &file, folder) {
        return None;
    }
    match file.field("status") {
        Some(Value::String(s)) if s == "in_progress" => Some(Earlier {
            session: session.to_string(),
            record,
            file,
        }),
        _ => None,
    }
}

/// Whether a record may be this folder's (`folder` a folder key): its
/// `cwd` is this folder or a folder below it, or it names no folder (no
/// `cwd`, an empty or relative one, not a string).
fn works_in(os: crate::platform::Os, file: &StateFile, folder: &str) -> bool {
    let Some(cwd) = file
        .field("cwd")
        .and_then(Value::as_str)
        .and_then(|c| crate::paths::folder_key(os, c))
    else {
        return true;
    };
    cwd == folder
        || cwd
            .strip_prefix(folder)
            .is_some_and(|rest| folder.ends_with('/') || rest.starts_with('/'))
}

/// Judge task_state.json content (pure).
pub fn parse_state_bytes(bytes: &[u8]) -> StateRead {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return StateRead::Unreadable("UnicodeDecodeError".into());
    };
    match parse_lenient(text) {
        Ok(Value::Object(map)) => StateRead::Object(map),
        Ok(_) => StateRead::Unreadable("not a JSON object".into()),
        Err(_) => StateRead::Unreadable("JSONDecodeError".into()),
    }
}

/// The Python exception class the reference would have named.
fn io_error_name(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => "FileNotFoundError",
        PermissionDenied => "PermissionError",
        IsADirectory => "IsADirectoryError",
        NotADirectory => "NotADirectoryError",
        _ => "OSError",
    }
}

impl StateFile {
    /// A field of the state object (`None` when absent or not an object).
    pub fn field(&self, name: &str) -> Option<&Value> {
        match &self.read {
            StateRead::Object(map) => map.get(name),
            _ => None,
        }
    }

    /// `str()` of a field, `""` when absent.
    pub fn text(&self, name: &str) -> String {
        self.field(name).map(py_str).unwrap_or_default()
    }

    /// `str()` of a field when it is truthy (Python's `if value:`).
    pub fn truthy_text(&self, name: &str) -> Option<String> {
        self.field(name).filter(|v| truthy(v)).map(py_str)
    }

    /// [`StateFile::text`] as shown to the user or to Claude: one line of at
    /// most `max_chars` characters ([`crate::text::one_line`]).
    pub fn shown(&self, name: &str, max_chars: usize) -> String {
        crate::text::one_line(&self.text(name), max_chars).into_owned()
    }

    /// [`StateFile::truthy_text`] as shown ([`StateFile::shown`]).
    pub fn truthy_shown(&self, name: &str, max_chars: usize) -> Option<String> {
        self.truthy_text(name)
            .map(|t| crate::text::one_line(&t, max_chars).into_owned())
    }

    /// Seconds since the last write: from the file's mtime, or when that is
    /// unknown from the `updated` field (naive times are local time).
    pub fn age_seconds(&self, now: SystemTime) -> Option<f64> {
        age_seconds(now, self.mtime, self.field("updated"), &|naive| {
            Local
                .from_local_datetime(&naive)
                .earliest()
                .map(|t| t.fixed_offset())
        })
    }

    /// What the hooks report, given the time now and the stale limit.
    pub fn verdict(&self, now: SystemTime, stale_hours: u32) -> StateVerdict {
        let map = match &self.read {
            StateRead::Missing => return StateVerdict::Missing,
            StateRead::Unreadable(reason) => {
                return StateVerdict::Unreadable {
                    reason: reason.clone(),
                }
            }
            StateRead::Object(map) => map,
        };
        match map.get("status") {
            None => StateVerdict::NoStatus,
            Some(Value::String(s)) if s.is_empty() => StateVerdict::NoStatus,
            Some(Value::String(s)) if s == "in_progress" => {
                let age_hours = self.age_seconds(now).map(|s| s / 3600.0);
                StateVerdict::InProgress {
                    stale: age_hours.is_some_and(|h| h > f64::from(stale_hours)),
                    age_hours,
                }
            }
            Some(Value::String(s)) if s == "clean" => StateVerdict::Clean {
                age_hours: self.age_seconds(now).map(|s| s / 3600.0),
            },
            Some(other) => StateVerdict::BadStatus {
                value: py_str(other),
            },
        }
    }
}

/// Age in seconds (negative when the time is in the future). `local`
/// places a naive date-time in the local time zone; it is only consulted
/// when there is no mtime.
pub fn age_seconds(
    now: SystemTime,
    mtime: Option<SystemTime>,
    updated: Option<&Value>,
    local: &dyn Fn(NaiveDateTime) -> Option<DateTime<FixedOffset>>,
) -> Option<f64> {
    if let Some(m) = mtime {
        return Some(match now.duration_since(m) {
            Ok(d) => d.as_secs_f64(),
            Err(e) => -e.duration().as_secs_f64(),
        });
    }
    let text = updated?.as_str()?;
    let then = parse_iso(text, local)?;
    let now: DateTime<chrono::Utc> = now.into();
    let delta = now.signed_duration_since(then);
    Some(delta.num_microseconds()? as f64 / 1e6)
}

/// The ISO 8601 forms Python's `datetime.fromisoformat` is commonly given:
/// a date, or a date and time (`T` or space) with optional fraction and
/// optional `Z` / `±HH:MM` offset.
fn parse_iso(
    text: &str,
    local: &dyn Fn(NaiveDateTime) -> Option<DateTime<FixedOffset>>,
) -> Option<DateTime<FixedOffset>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t);
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%d %H:%M:%S%.f%:z"] {
        if let Ok(t) = DateTime::parse_from_str(text, fmt) {
            return Some(t);
        }
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(n) = NaiveDateTime::parse_from_str(text, fmt) {
            return local(n);
        }
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    local(date.and_hms_opt(0, 0, 0)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn utc_plus_2(n: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        FixedOffset::east_opt(2 * 3600)?
            .from_local_datetime(&n)
            .single()
    }

    fn at(rfc3339: &str) -> SystemTime {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().into()
    }

    #[test]
    fn mtime_wins_over_updated() {
        let now = at("2026-09-28T12:00:00Z");
        let mtime = now - Duration::from_secs(600);
        let upd = json!("2020-01-01T00:00:00");
        assert_eq!(
            age_seconds(now, Some(mtime), Some(&upd), &utc_plus_2),
            Some(600.0)
        );
    }

    #[test]
    fn future_mtime_is_negative() {
        let now = at("2026-09-28T12:00:00Z");
        let age = age_seconds(now, Some(now + Duration::from_secs(60)), None, &utc_plus_2);
        assert_eq!(age, Some(-60.0));
    }

    #[test]
    fn naive_updated_is_local_time() {
        // 12:00 local at UTC+2 is 10:00Z: two hours before 12:00Z.
        let now = at("2026-09-28T12:00:00Z");
        let upd = json!("2026-09-28T12:00:00");
        assert_eq!(
            age_seconds(now, None, Some(&upd), &utc_plus_2),
            Some(7200.0)
        );
        let upd = json!("2026-09-28 12:00:00.5");
        assert_eq!(
            age_seconds(now, None, Some(&upd), &utc_plus_2),
            Some(7199.5)
        );
        let upd = json!("2026-09-28T11:00:00+00:00");
        assert_eq!(
            age_seconds(now, None, Some(&upd), &utc_plus_2),
            Some(3600.0)
        );
        let upd = json!("2026-09-28T11:00:00Z");
        assert_eq!(
            age_seconds(now, None, Some(&upd), &utc_plus_2),
            Some(3600.0)
        );
        let upd = json!("2026-09-26");
        assert_eq!(
            age_seconds(now, None, Some(&upd), &utc_plus_2),
            Some((2.0 * 24.0 + 14.0) * 3600.0)
        );
    }

    #[test]
    fn no_age_without_mtime_or_usable_updated() {
        let now = SystemTime::now();
        assert_eq!(age_seconds(now, None, None, &utc_plus_2), None);
        assert_eq!(age_seconds(now, None, Some(&json!("")), &utc_plus_2), None);
        assert_eq!(age_seconds(now, None, Some(&json!(5)), &utc_plus_2), None);
        assert_eq!(
            age_seconds(now, None, Some(&json!("yesterday")), &utc_plus_2),
            None
        );
    }

    #[test]
    fn a_record_is_this_folders_when_its_cwd_is_here_below_or_unsaid() {
        use crate::platform::Os;
        let rec = |cwd: Value| StateFile {
            read: match json!({"status": "in_progress", "cwd": cwd}) {
                Value::Object(m) => StateRead::Object(m),
                _ => unreachable!(),
            },
            mtime: None,
        };
        for (cwd, ok) in [
            (json!("/w/p"), true),
            (json!("/w/p/"), true),
            (json!("/w/p/src"), true),
            (json!(""), true),
            (json!("p"), true),
            (json!(5), true),
            (json!("/w/p-b"), false),
            (json!("/w"), false),
            (json!("/w/q"), false),
        ] {
            assert_eq!(works_in(Os::Linux, &rec(cwd.clone()), "/w/p"), ok, "{cwd}");
        }
        assert!(works_in(Os::Linux, &rec(json!("/w")), "/"));
        assert!(works_in(
            Os::Windows,
            &rec(json!(r"C:\Work\P\src")),
            "c:/work/p"
        ));
        assert!(!works_in(
            Os::Windows,
            &rec(json!(r"C:\Work\Q")),
            "c:/work/p"
        ));
    }

    #[test]
    fn content_classification() {
        assert!(matches!(
            parse_state_bytes(b"\xEF\xBB\xBF{\"status\":\"clean\"}"),
            StateRead::Object(_)
        ));
        assert_eq!(
            parse_state_bytes(b"[1]"),
            StateRead::Unreadable("not a JSON object".into())
        );
        assert_eq!(
            parse_state_bytes(b"{"),
            StateRead::Unreadable("JSONDecodeError".into())
        );
        assert_eq!(
            parse_state_bytes(b"{\"a\":\"\xff\"}"),
            StateRead::Unreadable("UnicodeDecodeError".into())
        );
    }

    #[test]
    fn verdicts() {
        let now = SystemTime::now();
        let file = |v: Value, age: u64| StateFile {
            read: match v {
                Value::Object(m) => StateRead::Object(m),
                _ => unreachable!(),
            },
            mtime: Some(now - Duration::from_secs(age)),
        };
        assert_eq!(file(json!({}), 0).verdict(now, 24), StateVerdict::NoStatus);
        assert_eq!(
            file(json!({"status": ""}), 0).verdict(now, 24),
            StateVerdict::NoStatus
        );
        assert_eq!(
            file(json!({"status": "paused"}), 0).verdict(now, 24),
            StateVerdict::BadStatus {
                value: "paused".into()
            }
        );
        assert_eq!(
            file(json!({"status": null}), 0).verdict(now, 24),
            StateVerdict::BadStatus {
                value: "None".into()
            }
        );
        assert_eq!(
            file(json!({"status": "in_progress"}), 30 * 3600).verdict(now, 24),
            StateVerdict::InProgress {
                stale: true,
                age_hours: Some(30.0)
            }
        );
        assert_eq!(
            file(json!({"status": "in_progress"}), 3600).verdict(now, 24),
            StateVerdict::InProgress {
                stale: false,
                age_hours: Some(1.0)
            }
        );
        assert_eq!(
            file(json!({"status": "clean"}), 3600).verdict(now, 24),
            StateVerdict::Clean {
                age_hours: Some(1.0)
            }
        );
    }
}
