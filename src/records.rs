//! `gk state`: the task records from the command line, where a person
//! looks first. Lists them (`--json` for scripts), sets them clean, prunes
//! old ones and writes one by hand. Every change goes through the install
//! engine (plan → diff → confirm → atomic write; `--yes`, `--dry-run`,
//! `--check`), with no backup kept: the state folder holds task records
//! and nothing else.
//!
//! The records are the files `<state folder>/<name>.json` whose name
//! [`crate::paths::record_file_name`] can give (anything else in the folder
//! is not a session's record and is left alone, and so is a link), plus the
//! shared record `<claude dir>/hooks/task_state.json`, which the hooks show
//! to a session that has no record of its own (and, in global scope, to
//! every session).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::cli::{ColorChoice, StateAction, StateArgs, TaskStatus};
use crate::error::{Error, Result};
use crate::hooks::{self, StateFile, StateRead, StateScope, StateVerdict};
use crate::install::apply::{execute, read_current, ChangeOptions};
use crate::install::plan::{FileChange, Plan, ReplaceStrategy};
use crate::paths::{self, ClaudePaths};

/// Where the records are, and how the hooks read them.
#[derive(Debug, Clone)]
pub struct Places {
    pub state_dir: PathBuf,
    pub shared: PathBuf,
    pub scope: StateScope,
    pub stale_hours: u32,
}

impl Places {
    pub fn from_env() -> Result<Places> {
        let claude = ClaudePaths::from_env().ok_or_else(|| {
            Error::new("could not find the home folder (set HOME or CLAUDE_CONFIG_DIR)")
        })?;
        let claude = ClaudePaths::at(
            std::path::absolute(claude.dir()).unwrap_or_else(|_| claude.dir().to_path_buf()),
        );
        let state_dir = paths::state_dir_from_env().ok_or_else(|| {
            Error::new(format!(
                "could not find the state folder (set HOME, or {} to an absolute path)",
                paths::STATE_DIR_VAR
            ))
        })?;
        // The hooks' own reading of gk.json (a broken file keeps "global").
        let config = hooks::load_for_hooks(&claude.config_file()).config;
        Ok(Places {
            state_dir,
            shared: claude.state_file(),
            scope: config.state.scope,
            stale_hours: config.stale_hours,
        })
    }
}

/// One record as `gk state` shows it.
#[derive(Debug, Clone)]
pub struct Record {
    pub path: PathBuf,
    /// The record's name without `.json` (the session id, for Claude Code's
    /// ids), or `(shared)`.
    pub session: String,
    pub shared: bool,
    pub file: StateFile,
    pub verdict: StateVerdict,
    pub age_secs: Option<f64>,
}

pub const SHARED_LABEL: &str = "(shared)";

/// The fields of the convention; only these are kept of a listed record.
const FIELDS: [&str; 6] = ["status", "task", "detail", "project", "cwd", "updated"];

/// The most of one field kept per listed record (a record may be 4 MiB;
/// thousands of them must not all be held whole).
const MAX_FIELD: usize = 1024;

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_FIELD) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// The record as listed: its verdict taken from all of it, then only the
/// convention's fields kept, each at most [`MAX_FIELD`] characters.
fn record(path: PathBuf, session: String, shared: bool, file: StateFile, p: &Places) -> Record {
    let now = SystemTime::now();
    let verdict = match file.verdict(now, p.stale_hours) {
        StateVerdict::BadStatus { value } => StateVerdict::BadStatus { value: cut(&value) },
        other => other,
    };
    let read = match file.read {
        StateRead::Object(map) => StateRead::Object(
            map.into_iter()
                .filter(|(k, _)| FIELDS.contains(&k.as_str()))
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => Value::String(cut(&s)),
                        v @ (Value::Array(_) | Value::Object(_)) => {
                            let text = v.to_string();
                            if text.len() > MAX_FIELD {
                                Value::String(cut(&text))
                            } else {
                                v
                            }
                        }
                        v => v,
                    };
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    };
    let file = StateFile {
        read,
        mtime: file.mtime,
    };
    Record {
        verdict,
        age_secs: file.age_seconds(now),
        path,
        session,
        shared,
        file,
    }
}

/// Every record, newest first; the shared one last when it exists. The
/// folder missing means no records; a folder that cannot be listed is an
/// error naming it.
pub fn list(p: &Places) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    match std::fs::read_dir(&p.state_dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("list", &p.state_dir, &e)),
        Ok(entries) => {
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("list", &p.state_dir, &e))?;
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if !paths::is_record_file_name(name) {
                    continue;
                }
                // Not followed: a link or a folder is nobody's record.
                match entry.file_type() {
                    Ok(t) if t.is_file() => {}
                    _ => continue,
                }
                let path = entry.path();
                let file = hooks::read_record(&path);
                let session = name.trim_end_matches(".json").to_string();
                out.push(record(path, session, false, file, p));
            }
        }
    }
    out.sort_by(|a, b| {
        b.file
            .mtime
            .cmp(&a.file.mtime)
            .then_with(|| a.session.cmp(&b.session))
    });
    let shared = hooks::read_state(&p.shared);
    if shared.read != StateRead::Missing {
        out.push(record(
            p.shared.clone(),
            SHARED_LABEL.into(),
            true,
            shared,
            p,
        ));
    }
    Ok(out)
}

fn status_word(v: &StateVerdict) -> String {
    match v {
        StateVerdict::Clean { .. } => "clean".into(),
        StateVerdict::InProgress { stale: false, .. } => "in_progress".into(),
        StateVerdict::InProgress { stale: true, .. } => "in_progress (stale)".into(),
        StateVerdict::Missing => "missing".into(),
        StateVerdict::Unreadable { reason } => format!("unreadable ({reason})"),
        StateVerdict::NoStatus => "no status".into(),
        StateVerdict::BadStatus { value } => format!("status '{value}'"),
    }
}

/// A cell of the table: one line of at most `max` characters, nothing a
/// terminal would act on ([`crate::text::one_line`]).
fn cell(text: &str, max: usize) -> String {
    crate::text::one_line(text, max).into_owned()
}

/// The table `gk state` prints.
pub fn table(p: &Places, records: &[Record]) -> String {
    let mut out = format!(
        "task records in {} (scope: {}; shared record {})\n",
        p.state_dir.display(),
        String::from(p.scope),
        p.shared.display()
    );
    if p.scope == StateScope::Global {
        out.push_str(
            "state.scope is \"global\" in gk.json: the hooks read the shared record only\n",
        );
    }
    if records.is_empty() {
        out.push_str("no records\n");
        return out;
    }
    let rows: Vec<[String; 6]> = records
        .iter()
        .map(|r| {
            [
                r.session.clone(),
                cell(&r.file.text("project"), 16),
                cell(&status_word(&r.verdict), 60),
                crate::hooks::age_text(r.age_secs),
                cell(&r.file.text("task"), 40),
                cell(&r.file.text("cwd"), 50),
            ]
        })
        .collect();
    let heads = ["SESSION", "PROJECT", "STATUS", "AGE", "TASK", "CWD"];
    let mut width = heads.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                l.push_str(c);
            } else {
                l.push_str(c);
                l.push_str(&" ".repeat(width[i] - c.chars().count() + 2));
            }
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(heads));
    for row in &rows {
        out.push_str(&line([
            &row[0], &row[1], &row[2], &row[3], &row[4], &row[5],
        ]));
    }
    out
}

/// `gk state --json`.
pub fn json(p: &Places, records: &[Record]) -> Value {
    let items: Vec<Value> = records
        .iter()
        .map(|r| {
            let field = |k: &str| r.file.field(k).cloned().unwrap_or(Value::Null);
            let (status, problem) = match &r.verdict {
                StateVerdict::Clean { .. } => ("clean", None),
                StateVerdict::InProgress { .. } => ("in_progress", None),
                other => ("unknown", Some(status_word(other))),
            };
            json!({
                "session": r.session,
                "shared": r.shared,
                "path": r.path.display().to_string(),
                "status": status,
                "stale": matches!(r.verdict, StateVerdict::InProgress { stale: true, .. }),
                "problem": problem,
                "task": field("task"),
                "detail": field("detail"),
                "project": field("project"),
                "cwd": field("cwd"),
                "age_seconds": r.age_secs.map(|a| a.round() as i64),
            })
        })
        .collect();
    json!({
        "scope": String::from(p.scope),
        "state_dir": p.state_dir.display().to_string(),
        "shared": p.shared.display().to_string(),
        "records": items,
    })
}

/// A record's text in the convention's form (the six fields, in order).
pub fn record_text(status: &str, task: &str, detail: &str, project: &str, cwd: &str) -> String {
    let updated = chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
    let v = json!({
        "status": status,
        "task": task,
        "detail": detail,
        "project": project,
        "cwd": cwd,
        "updated": updated,
    });
    // serde_json's map keeps keys sorted; the convention's order reads better.
    let mut out = String::from("{\n");
    let keys = ["status", "task", "detail", "project", "cwd", "updated"];
    for (i, k) in keys.iter().enumerate() {
        out.push_str(&format!(
            "  \"{k}\": {}{}\n",
            v[k],
            if i + 1 < keys.len() { "," } else { "" }
        ));
    }
    out.push_str("}\n");
    out
}

/// The current bytes of a record in the state folder, refusing a link: the
/// folder is Claude's to write, and a link planted there must not make gk
/// write (or delete) a file somewhere else.
fn current_record(path: &Path) -> Result<Option<Vec<u8>>> {
    use crate::bounded::ReadError;
    match crate::bounded::read_no_link(path, crate::hooks::MAX_STATE_BYTES) {
        Ok(c) => Ok(Some(c.bytes)),
        Err(ReadError::NotFound) => Ok(None),
        // A state folder that is a file (or lies below one) holds no
        // record; writing one is what fails, and says why.
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(None),
        Err(ReadError::NotRegular("a symbolic link")) => Err(Error::new(format!(
            "{} is a link, not a task record; gk leaves it alone (nothing written)",
            path.display()
        ))),
        Err(e) => Err(crate::install::apply::refusal(path, &e)),
    }
}

fn change(path: &Path, old: Option<Vec<u8>>, new: Option<String>, reason: &str) -> FileChange {
    FileChange {
        path: path.to_path_buf(),
        old,
        new: new.map(String::into_bytes),
        binary: false,
        create_mode: 0o644,
        strategy: ReplaceStrategy::NoBackup,
        reason: reason.into(),
    }
}

/// The clean form of a record, keeping where it was (`project`, `cwd`);
/// `None` when it is clean already.
fn cleaned(r: &Record) -> Option<String> {
    if matches!(r.verdict, StateVerdict::Clean { .. }) {
        return None;
    }
    let keep = |k: &str| match r.file.field(k) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    Some(record_text("clean", "", "", &keep("project"), &keep("cwd")))
}

/// The record a `SESSION` argument names: the session id's record, or the
/// record of that name as `gk state` lists it (a hashed name).
fn find_session<'r>(records: &'r [Record], p: &Places, session: &str) -> Option<&'r Record> {
    let by_id = paths::record_file_name(session).map(|n| p.state_dir.join(n));
    let by_name = p.state_dir.join(format!("{session}.json"));
    records
        .iter()
        .filter(|r| !r.shared)
        .find(|r| Some(&r.path) == by_id.as_ref())
        .or_else(|| {
            records
                .iter()
                .filter(|r| !r.shared)
                .find(|r| r.path == by_name)
        })
}

/// Plan `gk state clean`.
pub fn plan_clean(
    p: &Places,
    records: &[Record],
    session: Option<&str>,
    all: bool,
    shared: bool,
) -> Result<Plan> {
    let mut plan = Plan::new("gk state clean");
    let chosen: Vec<&Record> = if all {
        records.iter().collect()
    } else if shared {
        records.iter().filter(|r| r.shared).collect()
    } else {
        let session = session.unwrap_or_default();
        match find_session(records, p, session) {
            Some(r) => vec![r],
            None => {
                return Err(Error::new(format!(
                    "no task record for session {session:?} in {} (`gk state` lists them)",
                    p.state_dir.display()
                )))
            }
        }
    };
    for r in chosen {
        // A record that is clean already is left out (nothing to do).
        if let Some(new) = cleaned(r) {
            let old = if r.shared {
                read_current(&r.path, crate::hooks::MAX_STATE_BYTES)?
            } else {
                current_record(&r.path)?
            };
            plan.push(change(&r.path, old, Some(new), "set clean"));
        }
    }
    Ok(plan)
}

/// Plan `gk state prune`: delete every clean record and every record older
/// than `days`. The shared record is never deleted.
pub fn plan_prune(records: &[Record], days: u32) -> Result<Plan> {
    let mut plan = Plan::new("gk state prune");
    let limit = Duration::from_secs(u64::from(days) * 24 * 3600).as_secs_f64();
    for r in records.iter().filter(|r| !r.shared) {
        let clean = matches!(r.verdict, StateVerdict::Clean { .. });
        let old = r.age_secs.is_some_and(|a| a > limit);
        if clean || old {
            let why = if clean {
                "clean".to_string()
            } else {
                format!("not written for more than {days} days")
            };
            plan.push(change(&r.path, current_record(&r.path)?, None, &why));
        }
    }
    Ok(plan)
}

/// Plan `gk state set`.
pub fn plan_set(
    p: &Places,
    status: TaskStatus,
    task: &str,
    detail: &str,
    project: &str,
    session: Option<&str>,
    cwd: &str,
) -> Result<Plan> {
    let path = match session {
        None => p.shared.clone(),
        Some(id) => p.state_dir.join(
            paths::record_file_name(id)
                .ok_or_else(|| Error::new("--session needs a non-empty session id"))?,
        ),
    };
    let status = match status {
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Clean => "clean",
    };
    let mut plan = Plan::new("gk state set");
    let old = match session {
        None => read_current(&path, crate::hooks::MAX_STATE_BYTES)?,
        Some(_) => current_record(&path)?,
    };
    plan.push(change(
        &path,
        old,
        Some(record_text(status, task, detail, project, cwd)),
        &format!("set {status}"),
    ));
    Ok(plan)
}

pub fn run(args: &StateArgs, color: ColorChoice) -> Result<u8> {
    let p = Places::from_env()?;
    let records = || list(&p);
    let (plan, change) = match &args.action {
        None => {
            let records = records()?;
            let text = if args.json {
                let text = serde_json::to_string_pretty(&json(&p, &records))
                    .map_err(|e| Error::new(format!("could not format the records: {e}")))?;
                // A record's text may hold C1 controls, U+2028 and the like,
                // which serde_json leaves raw.
                format!("{}\n", crate::text::json_escaped(&text))
            } else {
                table(&p, &records)
            };
            print!("{text}");
            return Ok(0);
        }
        Some(StateAction::Clean {
            session,
            all,
            shared,
            change,
        }) => (
            plan_clean(&p, &records()?, session.as_deref(), *all, *shared)?,
            change,
        ),
        Some(StateAction::Prune { days, change }) => (plan_prune(&records()?, *days)?, change),
        Some(StateAction::Set {
            status,
            task,
            detail,
            project,
            session,
            change,
        }) => {
            let cwd = std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            (
                plan_set(
                    &p,
                    *status,
                    task.as_deref().unwrap_or_default(),
                    detail.as_deref().unwrap_or_default(),
                    project.as_deref().unwrap_or_default(),
                    session.as_deref(),
                    &cwd,
                )?,
                change,
            )
        }
    };
    let outcome = execute(&plan, &ChangeOptions::from(change), color)?;
    Ok(outcome.exit_code())
}
