//! The one path by which gk changes a user's files: show the plan, ask,
//! then write each file safely. Install, uninstall, enable/disable and
//! `gk doctor --fix` all end here.
//!
//! Writing a file means: re-read it and refuse if it differs from what the
//! plan was made from (Claude Code rewrites settings.json on its own), keep
//! a backup of it in gk's backup folder (see [`super::backup`]; one stamp
//! per run, the last few per file), re-read it once more right before the
//! rename, then write
//! atomically — a temp file in the same folder, written, synced, given the
//! old file's mode, renamed over the target; the temp file is removed if
//! anything fails. A file already as planned (another gk run got there
//! first) is left alone. A symlink is written through to its target, so the
//! link stays a link; removing never follows a link: the link goes, what it
//! points to stays.
//!
//! A temp file is `<name>.gk-tmp-<pid>`, locked by the run that writes it
//! until its rename. A run killed on the way leaves it behind; the next run
//! that writes the same file removes it once it can tell that run is over
//! (see [`remove_leftovers`]).

use std::fs;
use std::path::{Path, PathBuf};

use crate::change::backup::{self, Backups};
use crate::change::fs::*;
#[cfg(doc)]
use crate::change::plan::FolderChange;
use crate::change::plan::{ChangeKind, FileChange, Plan, ReplaceStrategy};
use crate::change::render::{render, shown_path, summary, Style};
use crate::console::{out, outln, Console};
use crate::env::Env;
use crate::error::{Error, Result};
/// How the user asked the change to be made (`--yes`, `--dry-run`, `--check`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeOptions {
    pub yes: bool,
    pub dry_run: bool,
    pub check: bool,
}

/// How a run of [`execute`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every file already as planned; nothing written, no backup.
    NothingToDo,
    /// `--dry-run`: plan shown, nothing written.
    DryRun,
    /// `--check`: `true` when something would change.
    Check { pending: bool },
    /// The user answered no.
    Declined,
    /// Files written; the backups and moved-aside files made on the way,
    /// and the task records passed over (changed since the plan).
    Written {
        kept: Vec<PathBuf>,
        skipped: Vec<PathBuf>,
    },
}

impl Outcome {
    /// The process exit code for this outcome (0 success, 1 otherwise).
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::NothingToDo | Outcome::DryRun | Outcome::Written { .. } => 0,
            Outcome::Check { pending } => u8::from(*pending),
            Outcome::Declined => 1,
        }
    }
}

/// Show `plan`, ask (unless `--yes`), and write it. Prints the plan on
/// stdout; returns an error (nothing written) when confirmation is needed
/// but stdin is not a terminal, or when a file changed since the plan.
pub fn execute(
    plan: &Plan,
    opts: &ChangeOptions,
    style: Style,
    env: &Env,
    c: &mut Console<'_>,
) -> Result<Outcome> {
    refuse_dangling_links(plan)?;
    let shown = render(plan, style);
    out!(c, "{shown}");
    c.flush();

    if plan.is_empty_of_changes() {
        if opts.check {
            return Ok(Outcome::Check { pending: false });
        }
        if !opts.dry_run {
            print_leftovers(c, &remove_leftovers(plan));
        }
        return Ok(Outcome::NothingToDo);
    }
    if opts.check {
        return Ok(Outcome::Check { pending: true });
    }
    if opts.dry_run {
        outln!(c, "\ndry run: nothing written.");
        return Ok(Outcome::DryRun);
    }
    if !opts.yes {
        if !env.stdin_is_terminal() {
            return Err(Error::refused(
                "refusing to change files without confirmation: stdin is not a terminal \
                 (pass --yes to apply, or --dry-run to only look)",
            ));
        }
        if shown.lines().count() > RECAP_AFTER_LINES {
            // The list has scrolled away behind the diffs: what the answer
            // applies to, again, right above the question.
            out!(c, "\n{}", summary(plan, style));
        }
        let answer = ask(c, "apply these changes?")?;
        if !answer {
            outln!(c, "nothing written.");
            return Ok(Outcome::Declined);
        }
    }
    // From here to the last write, no other gk run writes (see
    // `super::lock`): the first pass of the write checks every file of the
    // plan together, under the lock.
    let _lock = match crate::paths::backup_dir_from_env(env) {
        Some(dir) => Some(super::lock::RunLock::take(&dir)?),
        None => None,
    };
    print_leftovers(c, &remove_leftovers(plan));
    let stamp = run_stamp();
    let backups = if plan.keep_backups && plan.changes.iter().any(needs_backup) {
        Some(Backups::from_env(env)?)
    } else {
        None
    };
    let written = write_plan_with(plan, &stamp, backups.as_ref(), &Seams::none())?;
    report_written(c, plan, &written, backups.as_ref());
    Ok(Outcome::Written {
        kept: written.kept.into_iter().map(|(_, copy)| copy).collect(),
        skipped: written.skipped,
    })
}

/// A file the plan creates whose name is a link to a file in a folder
/// that does not exist: creating it would make that folder, and the ones
/// above it, somewhere gk was never asked to write, and uninstall would
/// not take them back. Refused, before anything is shown. A link into a
/// folder that is there (settings.json linked into a dotfiles folder
/// before the file is made) is written through, as editing is.
fn refuse_dangling_links(plan: &Plan) -> Result<()> {
    for change in &plan.changes {
        if change.old.is_some() || change.new.is_none() || !is_link(&change.path) {
            continue;
        }
        let Ok(target) = write_target(&change.path) else {
            continue; // a loop: the write says so
        };
        let folder = target.parent().filter(|f| !f.as_os_str().is_empty());
        if folder.is_none_or(|f| f.is_dir()) {
            continue;
        }
        return Err(Error::refused(format!(
            "{} is a link to {}, whose folder does not exist: gk does not make folders through a link; remove the link or make the folder",
            shown_path(&change.path),
            shown_path(&target)
        )));
    }
    Ok(())
}

/// Say what the write did, in the order things happened: empty folders
/// removed, folders made or made private, each file's old content kept,
/// then each file written (or skipped, or found already so).
fn report_written(c: &mut Console<'_>, plan: &Plan, written: &Written, backups: Option<&Backups>) {
    for dir in &plan.empty_folders {
        // `remove_dir` removes an empty folder and nothing else: a folder
        // with anything in it, a link or a file stays.
        if std::fs::remove_dir(dir).is_ok() {
            outln!(c, "removed   {} (an empty folder)", shown_path(dir));
        }
    }
    for folder in &plan.folders {
        let done = if folder.mode.is_none() {
            "created"
        } else {
            "private"
        };
        outln!(c, "{done:<9} {}", shown_path(&folder.path));
    }
    // In the order things happen: each file's old content is copied
    // before the file is written.
    let is_backup_copy = |copy: &PathBuf| backups.is_some_and(|b| copy.starts_with(b.dir()));
    let mut backed_up = false;
    for (original, copy) in &written.kept {
        if is_backup_copy(copy) {
            backed_up = true;
            outln!(
                c,
                "backed up {} to {}",
                shown_path(original),
                shown_path(copy)
            );
        }
    }
    let skipped: std::collections::HashSet<&PathBuf> = written.skipped.iter().collect();
    let already: std::collections::HashSet<&PathBuf> = written.already.iter().collect();
    for change in plan.changes.iter().filter(|c| c.changes_something()) {
        if skipped.contains(&change.path) {
            outln!(
                c,
                "skipped   {} ({})",
                shown_path(&change.path),
                skip_reason(&change.path)
            );
            continue;
        }
        let note = if already.contains(&change.path) {
            " (already so: another gk run got there first)"
        } else {
            ""
        };
        outln!(
            c,
            "{:<9} {}{note}",
            done_label(change.kind()),
            shown_path(&change.path)
        );
    }
    for copy in written.kept.iter().map(|(_, copy)| copy) {
        if !is_backup_copy(copy) {
            outln!(c, "kept      {}", shown_path(copy));
        }
    }
    if let (true, Some(b)) = (backed_up, backups) {
        outln!(
            c,
            "(gk keeps the last {} backups of each file in {}; `gk uninstall --purge` removes them)",
            backup::KEEP,
            shown_path(b.dir())
        );
    }
}

/// Why a task record was passed over, from what is at its name now (a
/// look after the fact, for the words only).
fn skip_reason(path: &Path) -> &'static str {
    match fs::symlink_metadata(path) {
        Err(_) => "removed since the plan was made: not written",
        Ok(m) if !m.is_file() => {
            "a link or other file put there since the plan was made: left alone"
        }
        Ok(_) => "written again since the plan was made: left as it is",
    }
}

/// A change whose old content is kept as a backup: a text file that
/// existed, is not a task record (whose folder holds records only) and is
/// not itself one of gk's backups.
fn needs_backup(change: &FileChange) -> bool {
    change.changes_something()
        && change.old.is_some()
        && !change.binary
        && !matches!(
            change.strategy,
            ReplaceStrategy::NoBackup
                | ReplaceStrategy::FolderRecord
                | ReplaceStrategy::OwnNoBackup
        )
        && !backup::is_backup(&change.path)
}

/// Ask a yes/no question on stdout and read the answer as one line from
/// stdin: `y` or `yes` (any case) is yes, anything else (or end of input)
/// is no. A whole line, so the Enter after `y` is not left for the shell,
/// and the output may go to a pipe (`... 2>&1 | tee log`) while the user
/// types into the terminal.
fn ask(c: &mut Console<'_>, question: &str) -> Result<bool> {
    out!(c, "{question} [y/N] ");
    c.flush();
    let line = read_answer(c.input)
        .map_err(|e| Error::new(format!("could not read the answer from stdin: {e}")))?;
    Ok(is_yes(&line))
}

/// Ask `question` and read one line of answer (trimmed), as the
/// confirmation does: for a choice asked before a plan is made.
pub fn ask_line(c: &mut Console<'_>, question: &str) -> Result<String> {
    out!(c, "{question} ");
    c.flush();
    let line = read_answer(c.input)
        .map_err(|e| Error::new(format!("could not read the answer from stdin: {e}")))?;
    Ok(line.trim().to_string())
}

/// One line of `input` (without reading past its newline, so nothing the
/// user typed after it is taken), at most [`ANSWER_LIMIT`] bytes.
fn read_answer(input: &mut dyn std::io::Read) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < ANSWER_LIMIT {
        match input.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => {
                line.push(byte[0]);
                if byte[0] == b'\n' {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    String::from_utf8(line).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// A plan longer than this (about a terminal's height) shows its action
/// list again right before the question.
pub const RECAP_AFTER_LINES: usize = 40;

/// The longest answer read: a yes is three letters.
const ANSWER_LIMIT: usize = 256;

fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn print_leftovers(c: &mut Console<'_>, removed: &[PathBuf]) {
    for path in removed {
        outln!(
            c,
            "removed   {} (left by a gk run that did not finish)",
            path.display()
        );
    }
}

fn done_label(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Create => "created",
        ChangeKind::Edit => "edited",
        ChangeKind::ReplaceBinary => "replaced",
        ChangeKind::Remove => "removed",
        ChangeKind::NothingToDo => "unchanged",
    }
}

/// How a file compares with its planned change, read again now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Now {
    /// As the plan found it: go ahead.
    AsPlanned,
    /// Already what the plan would make it (another gk run did the same
    /// change, or removed the file): nothing to do.
    AlreadyDone,
    /// A task record written again since the plan (its session is at
    /// work): left as it is now, and reported. Any other file that changed
    /// stops the run ([`now`] returns an error).
    Skip,
}

/// Read `change.path` again: [`Now::AsPlanned`], [`Now::AlreadyDone`], or an
/// error when another program wrote something else in the meantime.
fn now(change: &FileChange) -> Result<Now> {
    let longest = change.old.iter().chain(&change.new).map(Vec::len).max();
    // One byte more than either side: a file that grew is "something else".
    let limit = longest.unwrap_or(0) as u64 + 1;
    let read = if change.strategy == ReplaceStrategy::FolderRecord {
        crate::bounded::read_no_link(&change.path, limit)
    } else {
        crate::bounded::read(&change.path, limit)
    };
    let current = match read {
        Ok(c) => Some(c.bytes),
        Err(crate::bounded::ReadError::NotFound) => None,
        // A path through a file names no file either (creating it is what
        // fails, and says why).
        Err(crate::bounded::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => {
            None
        }
        Err(crate::bounded::ReadError::TooLarge { .. }) => return changed_or_skip(change),
        // A link (or anything else) put at a record's name since the plan:
        // not followed, and passed over like a record written again.
        Err(crate::bounded::ReadError::NotRegular(_) | crate::bounded::ReadError::Folder)
            if change.strategy == ReplaceStrategy::FolderRecord =>
        {
            return Ok(Now::Skip)
        }
        Err(e) => {
            return Err(Error::new(format!(
                "{}: {}; nothing more written",
                change.path.display(),
                e.reason()
            )))
        }
    };
    if current == change.old {
        Ok(Now::AsPlanned)
    } else if current == change.new {
        Ok(Now::AlreadyDone)
    } else {
        changed_or_skip(change)
    }
}

/// A record that changed is skipped; any other file stops the run.
fn changed_or_skip(change: &FileChange) -> Result<Now> {
    if change.strategy.is_record() {
        Ok(Now::Skip)
    } else {
        Err(changed(change))
    }
}

fn changed(change: &FileChange) -> Error {
    Error::new(format!(
        "{} changed since the plan was made (another program wrote it); \
         nothing more written, run the command again",
        change.path.display()
    ))
}

/// Test seams: run right before a file's last check, right before its
/// rename (after the backup), and right after the last check, before the
/// file is replaced or removed. All do nothing outside tests.
pub(crate) struct Seams<'a> {
    pub before_check: &'a dyn Fn(&Path),
    pub before_rename: &'a dyn Fn(&Path),
    pub after_check: &'a dyn Fn(&Path),
}

impl Seams<'_> {
    pub(crate) fn none() -> Seams<'static> {
        Seams {
            before_check: &|_| {},
            before_rename: &|_| {},
            after_check: &|_| {},
        }
    }
}

/// What [`write_plan_with`] did.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Backups and moved-aside files made, each with the file it was made of.
    pub kept: Vec<(PathBuf, PathBuf)>,
    /// Files another run had already made as planned (left alone).
    pub already: Vec<PathBuf>,
    /// Task records written again since the plan was made (left as they
    /// are now).
    pub skipped: Vec<PathBuf>,
}

/// Write every change of `plan`. All files are checked against the plan
/// first, along with everything that would make a write fail (a read-only
/// file, a folder that cannot be written): every new content is written to
/// a temp file beside its target before any target is touched, so such a
/// failure leaves every file as it was. Then each file is checked again
/// just before its own backup, and once more right before its rename.
/// Backups go to `backups` (none when `None`; the folder is made before any
/// file is touched). `before_write` runs right before each file's last
/// check but one (a seam for tests). Returns each backup and moved-aside
/// file made, with the file it was made of.
#[cfg(test)]
pub(crate) fn write_plan(
    plan: &Plan,
    stamp: &str,
    backups: Option<&Backups>,
    before_write: &dyn Fn(&Path),
) -> Result<Vec<(PathBuf, PathBuf)>> {
    let seams = Seams {
        before_check: before_write,
        ..Seams::none()
    };
    write_plan_with(plan, stamp, backups, &seams).map(|w| w.kept)
}

/// [`write_plan`] with both test seams.
pub(crate) fn write_plan_with(
    plan: &Plan,
    stamp: &str,
    backups: Option<&Backups>,
    seams: &Seams,
) -> Result<Written> {
    let mut pending: Vec<&FileChange> = Vec::new();
    let mut written = Written::default();
    for change in &plan.changes {
        if !change.changes_something() {
            // A file the plan found as wanted, and so leaves alone, is part
            // of what the plan assumed: another run that changed it since
            // (an uninstall that removed the drop-in this install found in
            // place, while this install puts the program back) would leave
            // a state no order of the two runs gives. So it is checked like
            // the others; a changed one stops the run (a record is skipped).
            now(change)?;
            continue;
        }
        match now(change)? {
            Now::AsPlanned => pending.push(change),
            Now::AlreadyDone => written.already.push(change.path.clone()),
            Now::Skip => written.skipped.push(change.path.clone()),
        }
    }
    let mut targets = Vec::new();
    for change in &pending {
        // A record in the state folder is written at its own name, never
        // through a link (one planted there is passed over at the write).
        let target = if change.strategy == ReplaceStrategy::FolderRecord {
            change.path.clone()
        } else {
            write_target(&change.path)?
        };
        refuse_read_only(change, &target)?;
        targets.push(target);
    }
    if let Some(b) = backups.filter(|_| pending.iter().any(|c| needs_backup(c))) {
        b.prepare()?;
    }
    for folder in &plan.folders {
        make_private(&folder.path)?;
    }
    let mut staged: Vec<Option<Staged>> = Vec::new();
    let mut probed = std::collections::HashSet::new();
    // Task records are staged one at a time, when their turn comes: each
    // staged file stays open (locked) until its rename, and a prune or
    // clean of 20,000 records would hold 20,000 files open. The first
    // record written in each folder is staged up front, which finds out
    // whether that folder can be written before anything changes.
    let mut later = vec![false; pending.len()];
    let mut record_folders = std::collections::HashSet::new();
    for (i, (change, target)) in pending.iter().zip(&targets).enumerate() {
        if change.strategy.is_record()
            && change.new.is_some()
            && !record_folders.insert(target.parent().map(Path::to_path_buf))
        {
            later[i] = true;
            staged.push(None);
            continue;
        }
        match stage(change, target, &mut probed) {
            Ok(tmp) => staged.push(tmp),
            Err(e) => {
                discard(&mut staged);
                return Err(e);
            }
        }
    }
    for (i, change) in pending.iter().enumerate() {
        (seams.before_check)(&change.path);
        let tmp = if later[i] {
            match stage(change, &targets[i], &mut probed) {
                Ok(tmp) => tmp,
                Err(e) => {
                    discard(&mut staged[i..]);
                    return Err(e);
                }
            }
        } else {
            staged[i].take()
        };
        let done = match now(change) {
            Ok(Now::AsPlanned) => commit(change, &targets[i], tmp, stamp, backups, seams),
            Ok(other) => {
                discard(&mut [tmp]);
                Ok(if other == Now::Skip {
                    Committed::Skipped
                } else {
                    Committed::Already
                })
            }
            Err(e) => {
                discard(&mut [tmp]);
                Err(e)
            }
        };
        match done {
            Ok(Committed::Done(k)) => written.kept.extend(k),
            Ok(Committed::Already) => written.already.push(change.path.clone()),
            Ok(Committed::Skipped) => written.skipped.push(change.path.clone()),
            Err(e) => {
                discard(&mut staged[i..]);
                return Err(e);
            }
        }
    }
    Ok(written)
}

/// A text file without write permission is the user saying "leave this
/// alone" (and on Windows it cannot be replaced): refuse before writing.
/// So is one another program holds open on Windows without letting it be
/// replaced ([`can_be_replaced`]).
/// A program is replaced by rename whatever its mode, so it is not asked.
fn refuse_read_only(change: &FileChange, target: &Path) -> Result<()> {
    if change.binary || change.old.is_none() {
        return Ok(());
    }
    match fs::metadata(target) {
        Ok(meta) if meta.permissions().readonly() => {
            return Err(Error::refused(format!(
                "{} is read-only; make it writable to let gk change it",
                change.path.display()
            )))
        }
        _ => {}
    }
    can_be_replaced(target).map_err(|e| {
        Error::refused(format!(
            "{} is open in another program that does not let it be replaced ({e}); close it (an editor, a sync client) and run the command again",
            change.path.display()
        ))
    })
}

/// A temp file holding a file's new content, and the open (locked) handle
/// that tells other runs its writer is alive.
struct Staged {
    path: PathBuf,
    _lock: fs::File,
}

/// Write the new content of `change` to a temp file beside `target`, with
/// the mode the target will have. `None` when the change removes the file.
/// `probed`: the folders already found writable in this run (one probe
/// per folder, however many files of it are removed).
fn stage(
    change: &FileChange,
    target: &Path,
    probed: &mut std::collections::HashSet<PathBuf>,
) -> Result<Option<Staged>> {
    let Some(bytes) = &change.new else {
        // Removing a file needs a folder that can be written, as writing
        // does: find out now, before any file of the plan has changed.
        let folder = target.parent().map(Path::to_path_buf).unwrap_or_default();
        if change.old.is_some() && !is_link(&change.path) && probed.insert(folder) {
            let (probe, lock) = write_temp(target, b"", 0o600).map_err(|_| {
                Error::new(format!(
                    "could not remove {}: its folder cannot be written; nothing changed",
                    change.path.display()
                ))
            })?;
            drop(lock);
            let _ = fs::remove_file(probe);
        }
        return Ok(None);
    };
    if let Some(parent) = target.parent() {
        // A task record's folder is private to the user, like the record.
        let private = change.strategy.is_record();
        create_folder(parent, private).map_err(|e| Error::io("create folder", parent, &e))?;
    }
    let record = change.strategy.is_record();
    let mut mode = if record {
        // A task record is private to the user, whatever mode it had.
        change.create_mode
    } else {
        existing_mode(target).unwrap_or(change.create_mode)
    };
    if change.binary {
        // A copy put there by hand may lack the x bits; the hooks must run.
        mode |= 0o111;
    }
    // A task record is not synced: it is a note of a moment that its
    // session rewrites (unsynced, as the client writes it) at any time,
    // and one sync per record made `gk state clean --all` wait on the
    // disk 10,000 times.
    write_temp_with(target, bytes, mode, !record)
        .map(|(path, file)| Some(Staged { path, _lock: file }))
}

/// Create `dir` and the folders above it that are missing; `private`:
/// mode 0700 where the platform has modes.
fn create_folder(dir: &Path, private: bool) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    #[cfg(not(unix))]
    let _ = private;
    builder.create(dir)
}

/// Create `dir` private (0700), or make it so; a link or a file in its
/// place is left alone (as the plan found it: [`FolderChange::private`]).
fn make_private(dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                    .map_err(|e| Error::io("make private", dir, &e))?;
            }
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(_) => create_folder(dir, true).map_err(|e| Error::io("create folder", dir, &e)),
    }
}

/// Remove temp files that will not be renamed into place.
fn discard(staged: &mut [Option<Staged>]) {
    for tmp in staged.iter_mut().filter_map(Option::take) {
        let _ = fs::remove_file(&tmp.path);
    }
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What [`commit`] did with one file.
enum Committed {
    /// Written or removed; the backups and moved-aside files kept.
    Done(Vec<(PathBuf, PathBuf)>),
    /// Found already as planned: nothing done.
    Already,
    /// A task record written again since the plan: left as it is now.
    Skipped,
}

/// Back up `target`, check the file a last time, then put the staged temp
/// file in its place (or remove the file). Removing a symlink removes the
/// link, never what it points to (and needs no backup: nothing is lost).
/// A task record goes through [`commit_record`].
fn commit(
    change: &FileChange,
    target: &Path,
    tmp: Option<Staged>,
    stamp: &str,
    backups: Option<&Backups>,
    seams: &Seams,
) -> Result<Committed> {
    if tmp.is_none() && is_link(&change.path) {
        if change.strategy == ReplaceStrategy::FolderRecord {
            // Put there since the plan: a link in the state folder is
            // left alone.
            discard(&mut [tmp]);
            return Ok(Committed::Skipped);
        }
        return remove_if_there(&change.path).map(|()| Committed::Done(Vec::new()));
    }
    let mut kept = Vec::new();
    if let (true, Some(b)) = (needs_backup(change), backups) {
        kept.push((change.path.clone(), b.keep(target, stamp)?));
    }
    // The last look before the rename: a write that landed since the check
    // before the backup stops the run here, and the backup (of a file that
    // is not changed after all) goes again.
    (seams.before_rename)(&change.path);
    match now(change) {
        Ok(Now::AsPlanned) => {}
        other => {
            for (_, copy) in kept.drain(..) {
                let _ = fs::remove_file(copy);
            }
            discard(&mut [tmp]);
            return other.map(|n| {
                if n == Now::Skip {
                    Committed::Skipped
                } else {
                    Committed::Already
                }
            });
        }
    }
    (seams.after_check)(&change.path);
    if change.strategy.is_record() && change.old.is_some() {
        return commit_record(change, target, tmp);
    }
    if change.strategy == ReplaceStrategy::FolderRecord {
        // A new record goes in only at a free name: whatever took the name
        // since the last look (the session's own record, a link) stays.
        let Some(tmp) = tmp else {
            return Ok(Committed::Already);
        };
        let placed = put_in_place(&tmp.path, target);
        let _ = fs::remove_file(&tmp.path);
        return match placed? {
            true => Ok(Committed::Done(Vec::new())),
            false => Ok(Committed::Skipped),
        };
    }
    let Some(tmp) = tmp else {
        if change.old.is_some() {
            match change.strategy {
                ReplaceStrategy::MoveAsideFirst => {
                    // Gone since the last look: another run removed it.
                    let Some(aside) = move_aside(target, stamp)? else {
                        return Ok(Committed::Already);
                    };
                    kept.extend(remove_unless_running(aside).map(|a| (change.path.clone(), a)));
                }
                // Still running (Windows refuses to delete it): left for a
                // later run, and reported.
                ReplaceStrategy::RemoveUnlessRunning => {
                    kept.extend(
                        remove_unless_running(target.to_path_buf())
                            .map(|a| (change.path.clone(), a)),
                    );
                }
                ReplaceStrategy::InPlace
                | ReplaceStrategy::NoBackup
                | ReplaceStrategy::FolderRecord
                | ReplaceStrategy::OwnNoBackup => {
                    remove_if_there(target)?;
                }
            }
        }
        return Ok(Committed::Done(kept));
    };
    let aside = if change.old.is_some() && change.strategy == ReplaceStrategy::MoveAsideFirst {
        // None when another run moved it away since the last look: the new
        // copy goes in all the same.
        move_aside(target, stamp)?
    } else {
        None
    };
    // The temp file stays open (and locked) through its rename, so no other
    // run takes it for a dead run's leftover.
    if let Err(e) = rename(&tmp.path, target) {
        let _ = fs::remove_file(&tmp.path);
        // Put the old copy back rather than leave no program at all.
        if let Some(aside) = &aside {
            let _ = fs::rename(aside, target);
        }
        return Err(Error::io("write", target, &e));
    }
    kept.extend(
        aside
            .and_then(remove_unless_running)
            .map(|a| (change.path.clone(), a)),
    );
    Ok(Committed::Done(kept))
}

/// Replace or remove an existing task record without losing a write its
/// session makes meanwhile. The record's session may write it at any
/// moment, so a check followed by an unlink or a rename always leaves a
/// window. Instead the record is first moved to a name of gk's own
/// (`<name>.gk-del-<pid>`, which is no record's name), then the moved file
/// is read: as planned, it is deleted, and the new content (if any) is
/// linked in at the record's name only if nothing took that name since.
/// Changed (written in the window), it is put back at its name, unless a
/// newer write already sits there, which supersedes it. Either way a
/// record written after the check is what stays.
fn commit_record(change: &FileChange, target: &Path, tmp: Option<Staged>) -> Result<Committed> {
    let aside = sibling(target, &format!(".gk-del-{}", std::process::id()));
    if let Err(e) = rename(target, &aside) {
        discard(&mut [tmp]);
        return match e.kind() {
            // Gone since the check: another run removed it (or its session).
            std::io::ErrorKind::NotFound if change.new.is_none() => Ok(Committed::Already),
            std::io::ErrorKind::NotFound => Ok(Committed::Skipped),
            _ => Err(Error::io("move aside", target, &e)),
        };
    }
    let limit = change.old.as_ref().map_or(0, Vec::len) as u64 + 1;
    let moved = crate::bounded::read_no_link(&aside, limit)
        .ok()
        .map(|c| c.bytes);
    if moved != change.old {
        discard(&mut [tmp]);
        put_in_place(&aside, target)?;
        let _ = fs::remove_file(&aside);
        return Ok(Committed::Skipped);
    }
    let _ = fs::remove_file(&aside);
    let Some(tmp) = tmp else {
        return Ok(Committed::Done(Vec::new()));
    };
    let placed = put_in_place(&tmp.path, target);
    let _ = fs::remove_file(&tmp.path);
    match placed? {
        true => Ok(Committed::Done(Vec::new())),
        false => Ok(Committed::Skipped),
    }
}

#[cfg(test)]
mod tests;
