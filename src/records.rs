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

use crate::change::fs::read_current;
use crate::change::plan::{FileChange, Plan, ReplaceStrategy};
use crate::cli::TaskStatus;
use crate::error::{Error, Result};
use crate::hooks;
use crate::hooks::config::StateScope;
use crate::hooks::state::{StateFile, StateRead, StateVerdict};
use crate::paths::{self};

/// Where the records are, and how the hooks read them.
#[derive(Debug, Clone)]
pub struct Places {
    pub state_dir: PathBuf,
    pub shared: PathBuf,
    pub scope: StateScope,
    pub stale_hours: u32,
}

impl Places {
    pub fn from_env(env: &crate::env::Env) -> Result<Places> {
        let m = crate::machine::Machine::from_env(env)?;
        let os = m.os();
        let claude = m.paths;
        let state_dir = m.state_dir.ok_or_else(|| {
            Error::new(format!(
                "could not find the state folder (set HOME, or {} to an absolute path)",
                paths::STATE_DIR_VAR
            ))
        })?;
        check_path(
            os,
            &state_dir,
            paths::home_dir(env).as_deref(),
            claude.dir(),
        )?;
        // The hooks' own reading of gk.json (a broken file keeps "global").
        let config = hooks::config::load_for_hooks(&claude.config_file()).config;
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
const FIELDS: [&str; 8] = [
    "status", "task", "detail", "project", "cwd", "updated", "after", "next",
];

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

/// Refuse `dir` as the state folder when its path says it is not gk's
/// own ([`paths::state_dir_problem`]): asked of the path as given and, when
/// it exists, of the folder it resolves to (a link to the home folder is
/// the home folder).
pub fn check_path(
    os: crate::platform::Os,
    dir: &Path,
    home: Option<&Path>,
    claude_dir: &Path,
) -> Result<()> {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let asked = [
        (
            Some(dir.to_path_buf()),
            home.map(Path::to_path_buf),
            Some(claude_dir.to_path_buf()),
        ),
        (real(dir), home.and_then(real), real(claude_dir)),
    ];
    for (d, h, c) in asked {
        let Some(d) = d else { continue };
        if let Some(why) = paths::state_dir_problem(os, &d, h.as_deref(), c.as_deref()) {
            return Err(not_a_state_folder(dir, &why));
        }
    }
    Ok(())
}

fn not_a_state_folder(dir: &Path, why: &str) -> Error {
    Error::new(format!(
        "{} is not a state folder: {why}; gk changes nothing there (set {} to a folder of gk's own)",
        dir.display(),
        paths::STATE_DIR_VAR
    ))
}

/// Why content read from a file with a record's name is not a task record
/// (`None`: it is one). A record is what the convention has Claude write: a
/// JSON object whose keys are among the convention's fields (`{}`
/// included), or one whose `status` is one of the convention's two values
/// (`in_progress`, `clean`) whatever other keys Claude gave it, or text
/// that is no JSON at all (a record Claude left half-written, which the
/// hooks show as unreadable). Valid JSON of another kind, or an object
/// with a key of its own and no such status, is some other program's file.
pub fn not_a_record(read: &StateRead) -> Option<String> {
    match read {
        StateRead::Object(map)
            if matches!(
                map.get("status").and_then(|v| v.as_str()),
                Some("in_progress" | "clean")
            ) =>
        {
            None
        }
        StateRead::Object(map) => map.keys().find(|k| !FIELDS.contains(&k.as_str())).map(|k| {
            format!(
                "it holds the key \"{}\", which no task record has",
                crate::text::one_line(k, 40)
            )
        }),
        StateRead::Unreadable(why) if why == "not a JSON object" => {
            Some("it is JSON but not an object".into())
        }
        _ => None,
    }
}

/// The task records in `dir`, from one listing: each record's path, name
/// and what reading it gave. A `*.json` file there that is not a record
/// (its name is not one [`paths::record_file_name`] gives, or
/// [`not_a_record`] says so) makes the whole folder an error; folder
/// pointers ([`paths::is_folder_pointer_name`]) are passed over: it is not
/// gk's, and nothing in it is changed. Links, folders and other special
/// files are nobody's record and are passed over; so are names not ending
/// in `.json` (gk's own temp files among them). A missing folder holds no
/// records.
pub fn scan(dir: &Path) -> Result<()> {
    scan_with(dir, |_, _, _| ()).map(|_| ())
}

/// [`scan`], giving each record's path, name and what reading it gave to
/// `each` as soon as it is read, and keeping what `each` makes of it: a
/// folder of thousands of records is never held whole at once.
fn scan_with<T>(
    dir: &Path,
    mut each: impl FnMut(PathBuf, String, StateFile) -> T,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io("list", dir, &e)),
        Ok(entries) => entries,
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, &e))?;
        let os_name = entry.file_name();
        let lossy = os_name.to_string_lossy();
        let is_json = lossy.len() >= 5
            && lossy.is_char_boundary(lossy.len() - 5)
            && lossy[lossy.len() - 5..].eq_ignore_ascii_case(".json");
        if !is_json {
            continue;
        }
        // Not followed: a link or a folder is nobody's record.
        match entry.file_type() {
            Ok(t) if t.is_file() => {}
            _ => continue,
        }
        let path = entry.path();
        let foreign = |why: String| {
            Error::new(format!(
                "{} is not a state folder: {} is not a task record ({why}); gk changes nothing there (set {} to a folder of gk's own)",
                dir.display(),
                crate::text::one_line(&lossy, 80),
                paths::STATE_DIR_VAR
            ))
        };
        let name = match os_name.to_str() {
            // A folder pointer (`folder.<hash>.json`, written by Claude as
            // the context asks): gk's, but no record; never changed here.
            Some(n) if paths::is_folder_pointer_name(n) => continue,
            Some(n) if paths::is_record_file_name(n) => n,
            _ => return Err(foreign("gk gives no record that name".into())),
        };
        let file = hooks::state::read_record(&path);
        if let Some(why) = not_a_record(&file.read) {
            return Err(foreign(why));
        }
        let name = name.trim_end_matches(".json").to_string();
        out.push(each(path, name, file));
    }
    Ok(out)
}

/// Every record, newest first; the shared one last when it exists. The
/// folder missing means no records; a folder that cannot be listed, or that
/// holds JSON that is not a record ([`scan`]), is an error naming it.
pub fn list(p: &Places) -> Result<Vec<Record>> {
    let mut out: Vec<Record> = scan_with(&p.state_dir, |path, session, file| {
        record(path, session, false, file, p)
    })?;
    out.sort_by(|a, b| {
        b.file
            .mtime
            .cmp(&a.file.mtime)
            .then_with(|| a.session.cmp(&b.session))
    });
    let shared = hooks::state::read_state(&p.shared);
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

/// A path as a line of the table shows it: one line, escaped (the
/// folder comes from the environment).
fn shown_path(path: &Path) -> String {
    crate::change::render::shown_path(path)
}

/// The table `gk state` prints.
pub fn table(p: &Places, records: &[Record]) -> String {
    let mut out = format!(
        "task records in {} (scope: {}; shared record {})\n",
        shown_path(&p.state_dir),
        String::from(p.scope),
        shown_path(&p.shared)
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
    let rows: Vec<[String; 7]> = records
        .iter()
        .map(|r| {
            [
                r.session.clone(),
                cell(&r.file.text("project"), 16),
                cell(&status_word(&r.verdict), 60),
                crate::hooks::voice::age_text(r.age_secs),
                cell(&r.file.text("task"), 40),
                // The session this one took its task over from (`after`,
                // which Claude writes when it continues an earlier task).
                cell(&r.file.text("after"), 40),
                cell(&r.file.text("cwd"), 50),
            ]
        })
        .collect();
    let heads = [
        "SESSION", "PROJECT", "STATUS", "AGE", "TASK", "AFTER", "CWD",
    ];
    let mut width = heads.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 7]| {
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
            &row[0], &row[1], &row[2], &row[3], &row[4], &row[5], &row[6],
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
                "after": field("after"),
                "next": field("next"),
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
    Ok(record_read(path, false)
        .map_err(|why| refused(path, &why))?
        .map(|c| c.bytes))
}

/// A record read for a change, with the file's modification time; the
/// shared record through a link, a record of the state folder never.
/// `Err`: why it cannot be read, without its path.
fn record_read(
    path: &Path,
    shared: bool,
) -> std::result::Result<Option<crate::bounded::Contents>, String> {
    use crate::bounded::ReadError;
    let limit = crate::hooks::state::MAX_STATE_BYTES;
    let read = match shared {
        true => crate::bounded::read(path, limit),
        false => crate::bounded::read_no_link(path, limit),
    };
    match read {
        Ok(c) => Ok(Some(c)),
        Err(ReadError::NotFound) => Ok(None),
        // A state folder that is a file (or lies below one) holds no
        // record; writing one is what fails, and says why.
        Err(ReadError::Io(e)) if !shared && e.kind() == std::io::ErrorKind::NotADirectory => {
            Ok(None)
        }
        Err(ReadError::NotRegular("a symbolic link")) => {
            Err("a link, not a task record; gk leaves it alone".into())
        }
        Err(e) => Err(e.reason()),
    }
}

/// The refusal of a plan over a record that cannot be read.
fn refused(path: &Path, why: &str) -> Error {
    Error::refused(format!("{}: {why}", path.display()))
}

/// A change to a record: `shared`, the shared record (edited through a
/// link, as documented); otherwise a record in the state folder, whose
/// name is never followed ([`ReplaceStrategy::FolderRecord`]).
fn change(
    path: &Path,
    shared: bool,
    old: Option<Vec<u8>>,
    new: Option<String>,
    reason: &str,
) -> FileChange {
    FileChange {
        path: path.to_path_buf(),
        old,
        new: new.map(String::into_bytes),
        binary: false,
        // Private to the user (the folder is made 0700 too).
        create_mode: 0o600,
        strategy: if shared {
            ReplaceStrategy::NoBackup
        } else {
            ReplaceStrategy::FolderRecord
        },
        reason: reason.into(),
    }
}

/// A listed record read again for its change, so that what the plan
/// decides and the bytes it is checked against at write time come from
/// the same read: its bytes and what they hold. `None` when it is gone, or
/// is no longer a task record (left alone).
fn reread(r: &Record) -> Result<Option<(Vec<u8>, StateFile)>> {
    reread_why(r).map_err(|why| refused(&r.path, &why))
}

/// [`reread`], `Err` saying why without the path.
fn reread_why(r: &Record) -> std::result::Result<Option<(Vec<u8>, StateFile)>, String> {
    Ok(record_read(&r.path, r.shared)?.and_then(|c| {
        let file = StateFile {
            read: hooks::state::parse_state_bytes(&c.bytes),
            // The shared record's age plays no part in what is done to it.
            mtime: if r.shared { None } else { c.mtime },
        };
        (r.shared || not_a_record(&file.read).is_none()).then_some((c.bytes, file))
    }))
}

/// The clean form of a record, keeping where it was (`project`, `cwd`);
/// `None` when it is clean already.
fn cleaned(file: &StateFile, stale_hours: u32) -> Option<String> {
    if matches!(
        file.verdict(SystemTime::now(), stale_hours),
        StateVerdict::Clean { .. }
    ) {
        return None;
    }
    let keep = |k: &str| match file.field(k) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    Some(record_text("clean", "", "", &keep("project"), &keep("cwd")))
}

/// The record a `SESSION` argument names: the session id's record, or the
/// record of that name as `gk state` lists it (a hashed name).
fn find_session<'r>(
    records: &'r [Record],
    p: &Places,
    session: &str,
) -> Result<Option<&'r Record>> {
    let by_id = paths::record_file_name(session).map(|n| p.state_dir.join(n));
    let by_name = p.state_dir.join(format!("{session}.json"));
    let own = || records.iter().filter(|r| !r.shared);
    if let Some(r) = own()
        .find(|r| Some(&r.path) == by_id.as_ref())
        .or_else(|| own().find(|r| r.path == by_name))
    {
        return Ok(Some(r));
    }
    // The start of an id, as `gk state` shows it, names the one record
    // whose name starts so.
    if session.is_empty() {
        return Ok(None);
    }
    let starting: Vec<&Record> = own().filter(|r| r.session.starts_with(session)).collect();
    match starting.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => {
            let names: Vec<&str> = many.iter().take(5).map(|r| r.session.as_str()).collect();
            let more = if many.len() > names.len() {
                ", ..."
            } else {
                ""
            };
            Err(Error::refused(format!(
                "more than one task record starts with {session:?} ({}{more}); give more of the id",
                names.join(", ")
            )))
        }
    }
}

/// The most bytes of records one plan over many records holds (`prune`,
/// `clean --all`, `uninstall --purge`): a plan keeps each record's content
/// to check, at the write, that it did not change meanwhile. Past this the
/// rest are passed over with a note, for the next run. A record is at most
/// [`hooks::state::MAX_STATE_BYTES`] (4 MiB): this is eight such records,
/// or some 150,000 ordinary ones.
const PLAN_RECORD_BYTES: usize = 32 << 20;

/// What is left of [`PLAN_RECORD_BYTES`] for one plan.
struct Held {
    left: usize,
}

impl Held {
    fn new() -> Held {
        Held {
            left: PLAN_RECORD_BYTES,
        }
    }

    /// Whether `len` more bytes fit in the plan; they are counted when so.
    fn take(&mut self, len: usize) -> bool {
        let fits = len <= self.left;
        if fits {
            self.left -= len;
        }
        fits
    }
}

/// Why a record was passed over when its plan was full ([`Held`]).
fn held_full() -> String {
    format!(
        "this run holds {} MiB of records already",
        PLAN_RECORD_BYTES >> 20
    )
}

/// The note for a record `prune` or `clean --all` passed over because
/// the plan was full: the next run takes it.
fn left_for_the_next_run(path: &Path) -> String {
    format!(
        "note: left {} as it is ({}; run the command again for the rest)",
        path.display(),
        held_full()
    )
}

/// [`reread`] for a command over many records (`prune`, `clean --all`):
/// anyone may write the state folder, so one record gk cannot read again
/// (larger than the bound, a link put there since the listing) is passed
/// over with a note naming it and why, as `--purge` does; it never stops
/// the rest.
fn reread_or_note(r: &Record, notes: &mut Vec<String>) -> Option<(Vec<u8>, StateFile)> {
    match reread_why(r) {
        Ok(found) => found,
        Err(why) => {
            notes.push(format!("note: left {} as it is ({why})", r.path.display()));
            None
        }
    }
}

/// Plan `gk state clean`, with a note for each record passed over.
pub fn plan_clean(
    p: &Places,
    records: &[Record],
    session: Option<&str>,
    all: bool,
    shared: bool,
) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk state clean");
    let chosen: Vec<&Record> = if all {
        records.iter().collect()
    } else if shared {
        records.iter().filter(|r| r.shared).collect()
    } else {
        let session = session.unwrap_or_default();
        match find_session(records, p, session)? {
            Some(r) => vec![r],
            None => {
                return Err(Error::new(format!(
                    "no task record for session {session:?} in {} (`gk state` lists them)",
                    p.state_dir.display()
                )))
            }
        }
    };
    let mut notes = Vec::new();
    let mut held = Held::new();
    for r in chosen {
        // A record named on its own is refused with the reason.
        let found = match all {
            true => reread_or_note(r, &mut notes),
            false => reread(r)?,
        };
        let Some((old, file)) = found else {
            continue;
        };
        // A record that is clean already is left out (nothing to do).
        if let Some(new) = cleaned(&file, p.stale_hours) {
            if !held.take(old.len() + new.len()) {
                notes.push(left_for_the_next_run(&r.path));
                continue;
            }
            plan.push(change(&r.path, r.shared, Some(old), Some(new), "set clean"));
        }
    }
    Ok((plan, notes))
}

/// Plan `gk state prune`: delete every clean record and every record older
/// than `days`. The shared record is never deleted. With a note for each
/// record passed over.
pub fn plan_prune(records: &[Record], days: u32) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk state prune").when_idle(format!(
        "nothing to do: no record to prune (none is clean or older than {days} days)"
    ));
    let limit = Duration::from_secs(u64::from(days) * 24 * 3600).as_secs_f64();
    let now = SystemTime::now();
    let mut notes = Vec::new();
    let mut held = Held::new();
    for r in records.iter().filter(|r| !r.shared) {
        let Some((bytes, file)) = reread_or_note(r, &mut notes) else {
            continue;
        };
        // The stale limit plays no part in "clean".
        let clean = matches!(file.verdict(now, 0), StateVerdict::Clean { .. });
        let old = file.age_seconds(now).is_some_and(|a| a > limit);
        if clean || old {
            let why = if clean {
                "clean".to_string()
            } else {
                format!("not written for more than {days} days")
            };
            if !held.take(bytes.len()) {
                notes.push(left_for_the_next_run(&r.path));
                continue;
            }
            plan.push(change(&r.path, false, Some(bytes), None, &why));
        }
    }
    Ok((plan, notes))
}

/// `gk uninstall --purge`: the removal of every session's record and of
/// the folder pointers beside them in `state_dir` (the shared record is
/// uninstall's own, with task_state.json), and a note for each such file
/// left in place. Anyone may write the state folder (Claude writes the
/// pointers), so one file gk cannot read to remove (larger than
/// [`crate::hooks::state::MAX_STATE_BYTES`], a link, unreadable) is passed over
/// with a note naming it and why; it never stops the rest of the
/// uninstall.
pub fn purge_changes(
    state_dir: &Path,
    records: &[Record],
) -> Result<(Vec<FileChange>, Vec<String>)> {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let mut held = Held::new();
    let mut purge = |path: &Path, what: &str| {
        use crate::bounded::ReadError;
        match crate::bounded::read_no_link(path, crate::hooks::state::MAX_STATE_BYTES) {
            // Not "run the command again": this run may remove the
            // program that would run it.
            Ok(c) if !held.take(c.bytes.len()) => notes.push(format!(
                "left {} in place: {what} passed over ({}); delete it by hand if it is not wanted",
                path.display(),
                held_full()
            )),
            Ok(c) => out.push(change(
                path,
                false,
                Some(c.bytes),
                None,
                &format!("{what} (--purge)"),
            )),
            Err(ReadError::NotFound) => {}
            Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => {}
            Err(e) => notes.push(format!(
                "left {} in place: {what} that gk does not read to remove ({}); delete it by hand if it is not wanted",
                path.display(),
                e.reason()
            )),
        }
    };
    for r in records.iter().filter(|r| !r.shared) {
        purge(&r.path, "a task record");
    }
    let entries = match std::fs::read_dir(state_dir) {
        Ok(entries) => entries,
        Err(_) => return Ok((out, notes)), // listed by `list` already: gone since
    };
    let mut odd = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let (is_pointer, is_record) = match name.to_str() {
            Some(n) => (
                paths::is_folder_pointer_name(n),
                paths::is_record_file_name(n),
            ),
            None => (false, false),
        };
        // Not followed: a link or a folder of such a name is not gk's, and
        // is named (the folder then stays too).
        let file_type = entry.file_type();
        if (is_pointer || is_record) && !file_type.as_ref().is_ok_and(|t| t.is_file()) {
            let what = match &file_type {
                Ok(t) if t.is_symlink() => "a link",
                Ok(t) if t.is_dir() => "a folder",
                _ => "not a regular file",
            };
            odd.push(format!(
                "left {} in place: {what} named like a {}, which gk does not remove; delete it by hand if it is not wanted",
                entry.path().display(),
                if is_pointer { "folder pointer" } else { "task record" }
            ));
            continue;
        }
        if !is_pointer {
            continue;
        }
        purge(&entry.path(), "a folder pointer");
    }
    notes.extend(odd);
    Ok((out, notes))
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
    // A task in progress is shown by its name: a blank one says nothing
    // (the status line showed `gk DIRTY ''`).
    if status == TaskStatus::InProgress && task.trim().is_empty() {
        return Err(Error::new(
            "in_progress needs a task: TASK is empty (name the task, e.g. `gk state set in_progress \"Fix the login test\"`)",
        ));
    }
    let status = match status {
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Clean => "clean",
    };
    let mut plan = Plan::new("gk state set");
    let old = match session {
        None => read_current(&path, crate::hooks::state::MAX_STATE_BYTES)?,
        Some(_) => {
            // Only into a folder of gk's own.
            scan(&p.state_dir)?;
            current_record(&path)?
        }
    };
    plan.push(change(
        &path,
        session.is_none(),
        old,
        Some(record_text(status, task, detail, project, cwd)),
        &format!("set {status}"),
    ));
    Ok(plan)
}
