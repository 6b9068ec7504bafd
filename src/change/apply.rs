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
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};

use crate::change::backup::{self, Backups};
use crate::change::fs::*;
#[cfg(doc)]
use crate::change::plan::FolderChange;
use crate::change::plan::{ChangeKind, FileChange, Plan, ReplaceStrategy};
use crate::change::render::{render, summary, Style};
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
    /// Files written; the backups and moved-aside files made on the way.
    Written { kept: Vec<PathBuf> },
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
pub fn execute(plan: &Plan, opts: &ChangeOptions, style: Style) -> Result<Outcome> {
    let shown = render(plan, style);
    print!("{shown}");
    let _ = std::io::stdout().flush();

    if plan.is_empty_of_changes() {
        if opts.check {
            return Ok(Outcome::Check { pending: false });
        }
        if !opts.dry_run {
            print_leftovers(&remove_leftovers(plan));
        }
        return Ok(Outcome::NothingToDo);
    }
    if opts.check {
        return Ok(Outcome::Check { pending: true });
    }
    if opts.dry_run {
        println!("\ndry run: nothing written.");
        return Ok(Outcome::DryRun);
    }
    if !opts.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::new(
                "refusing to change files without confirmation: stdin is not a terminal \
                 (pass --yes to apply, or --dry-run to only look); nothing written",
            ));
        }
        if shown.lines().count() > RECAP_AFTER_LINES {
            // The list has scrolled away behind the diffs: what the answer
            // applies to, again, right above the question.
            print!("\n{}", summary(plan, style));
        }
        let answer = ask("apply these changes?")?;
        if !answer {
            println!("nothing written.");
            return Ok(Outcome::Declined);
        }
    }
    print_leftovers(&remove_leftovers(plan));
    let stamp = run_stamp();
    let backups = if plan.keep_backups && plan.changes.iter().any(needs_backup) {
        Some(Backups::from_env()?)
    } else {
        None
    };
    let written = write_plan_with(plan, &stamp, backups.as_ref(), &Seams::none())?;
    for folder in &plan.folders {
        let done = if folder.mode.is_none() {
            "created"
        } else {
            "private"
        };
        println!("{done:<9} {}", folder.path.display());
    }
    let skipped: std::collections::HashSet<&PathBuf> = written.skipped.iter().collect();
    let already: std::collections::HashSet<&PathBuf> = written.already.iter().collect();
    for change in plan.changes.iter().filter(|c| c.changes_something()) {
        if skipped.contains(&change.path) {
            println!(
                "skipped   {} (written again since the plan was made: left as it is)",
                change.path.display()
            );
            continue;
        }
        let note = if already.contains(&change.path) {
            " (already so: another gk run got there first)"
        } else {
            ""
        };
        println!(
            "{:<9} {}{note}",
            done_label(change.kind()),
            change.path.display()
        );
    }
    let mut backed_up = false;
    for (original, copy) in &written.kept {
        if backups.as_ref().is_some_and(|b| copy.starts_with(b.dir())) {
            backed_up = true;
            println!("backed up {} to {}", original.display(), copy.display());
        } else {
            println!("kept      {}", copy.display());
        }
    }
    if let (true, Some(b)) = (backed_up, &backups) {
        println!(
            "(gk keeps the last {} backups of each file in {}; `gk uninstall --purge` removes them)",
            backup::KEEP,
            b.dir().display()
        );
    }
    Ok(Outcome::Written {
        kept: written.kept.into_iter().map(|(_, copy)| copy).collect(),
    })
}

/// A change whose old content is kept as a backup: a text file that
/// existed, is not a task record (whose folder holds records only) and is
/// not itself one of gk's backups.
fn needs_backup(change: &FileChange) -> bool {
    change.changes_something()
        && change.old.is_some()
        && !change.binary
        && change.strategy != ReplaceStrategy::NoBackup
        && !backup::is_backup(&change.path)
}

/// Ask a yes/no question on stdout and read the answer as one line from
/// stdin: `y` or `yes` (any case) is yes, anything else (or end of input)
/// is no. A whole line, so the Enter after `y` is not left for the shell,
/// and the output may go to a pipe (`... 2>&1 | tee log`) while the user
/// types into the terminal.
fn ask(question: &str) -> Result<bool> {
    use std::io::{BufRead as _, Read as _};
    print!("{question} [y/N] ");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .take(ANSWER_LIMIT)
        .read_line(&mut line)
        .map_err(|e| Error::new(format!("could not read the answer from stdin: {e}")))?;
    Ok(is_yes(&line))
}

/// A plan longer than this (about a terminal's height) shows its action
/// list again right before the question.
pub const RECAP_AFTER_LINES: usize = 40;

/// The longest answer read: a yes is three letters.
const ANSWER_LIMIT: u64 = 256;

fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn print_leftovers(removed: &[PathBuf]) {
    for path in removed {
        println!(
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
    let current = match crate::bounded::read(&change.path, limit) {
        Ok(c) => Some(c.bytes),
        Err(crate::bounded::ReadError::NotFound) => None,
        // A path through a file names no file either (creating it is what
        // fails, and says why).
        Err(crate::bounded::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => {
            None
        }
        Err(crate::bounded::ReadError::TooLarge { .. }) => return changed_or_skip(change),
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
    if change.strategy == ReplaceStrategy::NoBackup {
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
    for change in plan.changes.iter().filter(|c| c.changes_something()) {
        match now(change)? {
            Now::AsPlanned => pending.push(change),
            Now::AlreadyDone => written.already.push(change.path.clone()),
            Now::Skip => written.skipped.push(change.path.clone()),
        }
    }
    let mut targets = Vec::new();
    for change in &pending {
        let target = write_target(&change.path)?;
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
        if change.strategy == ReplaceStrategy::NoBackup
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
/// A program is replaced by rename whatever its mode, so it is not asked.
fn refuse_read_only(change: &FileChange, target: &Path) -> Result<()> {
    if change.binary || change.old.is_none() {
        return Ok(());
    }
    match fs::metadata(target) {
        Ok(meta) if meta.permissions().readonly() => Err(Error::new(format!(
            "{} is read-only; make it writable to let gk change it (nothing written)",
            change.path.display()
        ))),
        _ => Ok(()),
    }
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
        let private = change.strategy == ReplaceStrategy::NoBackup;
        create_folder(parent, private).map_err(|e| Error::io("create folder", parent, &e))?;
    }
    let record = change.strategy == ReplaceStrategy::NoBackup;
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
    if change.strategy == ReplaceStrategy::NoBackup && change.old.is_some() {
        return commit_record(change, target, tmp);
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
                ReplaceStrategy::InPlace | ReplaceStrategy::NoBackup => {
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
mod tests {
    use super::*;
    use std::cell::Cell;

    fn edit(path: &Path, old: &str, new: &str) -> FileChange {
        FileChange::text(path, Some(old.into()), Some(new.into()), "test")
    }

    /// A backup folder in its own temp folder, apart from the files.
    fn backups() -> (tempfile::TempDir, Backups) {
        let tmp = tempfile::tempdir().unwrap();
        let b = Backups::at(tmp.path().join("gk/backups"));
        (tmp, b)
    }

    #[test]
    fn a_file_changed_underneath_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{}").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        // Another program rewrites b.json between the plan and its write.
        let (_keep, store) = backups();
        let err = write_plan(&plan, "s", Some(&store), &|p: &Path| {
            if p == b {
                fs::write(&b, "{\"other\":true}").unwrap();
            }
        })
        .unwrap_err();
        assert!(err.message().contains("changed since the plan"), "{err}");
        assert_eq!(fs::read_to_string(&b).unwrap(), "{\"other\":true}");
        // a.json was written (and backed up); b.json was not backed up.
        assert_eq!(store.list().len(), 1);
        assert!(store.list()[0]
            .to_string_lossy()
            .contains("a.json.gk-backup-s"));
    }

    #[test]
    fn a_change_found_before_any_write_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{\"changed\":1}").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        let calls = Cell::new(0);
        let (_keep, store) = backups();
        assert!(write_plan(&plan, "s", Some(&store), &|_| calls.set(calls.get() + 1)).is_err());
        assert!(
            !store.dir().exists(),
            "no backup folder for a run that wrote nothing"
        );
        assert_eq!(calls.get(), 0);
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
    }

    #[cfg(unix)]
    #[test]
    fn backup_keeps_mode_and_write_keeps_mode_and_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("settings.json");
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&link, "{}", "{\"a\":1}"));
        let (_keep, store) = backups();
        let kept = write_plan(&plan, "s1", Some(&store), &|_| {}).unwrap();
        let kept: Vec<PathBuf> = kept.into_iter().map(|(_, k)| k).collect();
        assert!(kept[0].starts_with(store.dir()), "{kept:?}");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\":1}");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&real), 0o600);
        assert_eq!(kept.len(), 1);
        assert_eq!(fs::read_to_string(&kept[0]).unwrap(), "{}");
        assert_eq!(mode(&kept[0]), 0o600);
        // Nothing beside the file: no temp file, no backup.
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["real.json", "settings.json"]);
    }

    #[test]
    fn a_second_run_in_the_same_second_does_not_overwrite_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let (_keep, store) = backups();
        let a = dir.path().join("a.json");
        fs::write(&a, "1").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "1", "2"));
        write_plan(&plan, "same", Some(&store), &|_| {}).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "2", "3"));
        let kept = write_plan(&plan, "same", Some(&store), &|_| {}).unwrap();
        let name = format!("{}.gk-backup-same", backup::file_key(&a));
        assert_eq!(
            kept,
            vec![(a.clone(), store.dir().join(format!("{name}-2")))]
        );
        assert_eq!(fs::read_to_string(store.dir().join(name)).unwrap(), "1");
        assert_eq!(fs::read_to_string(&kept[0].1).unwrap(), "2");
    }

    #[test]
    fn a_backup_folder_that_cannot_be_made_stops_the_run_before_any_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        fs::write(&a, "{}").unwrap();
        // A file where the backup folder's parent should be.
        let blocked = dir.path().join("data");
        fs::write(&blocked, "not a folder").unwrap();
        let store = Backups::at(blocked.join("gk/backups"));
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        let err = write_plan(&plan, "s", Some(&store), &|_| {}).unwrap_err();
        assert!(err.message().contains("backup folder"), "{err}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_failed_write_leaves_no_temp_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a non-empty folder: the final rename fails.
        let target = dir.path().join("settings.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("x"), "x").unwrap();
        let err = atomic_write(&target, b"{}", 0o644).unwrap_err();
        assert!(err.message().starts_with("could not write "), "{err}");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["settings.json".to_string()]);
    }

    #[test]
    fn a_task_record_is_written_without_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let rec = dir.path().join("abc.json");
        fs::write(&rec, "{\"status\": \"in_progress\"}").unwrap();
        let mut plan = Plan::new("test");
        let mut change = edit(
            &rec,
            "{\"status\": \"in_progress\"}",
            "{\"status\": \"clean\"}",
        );
        change.strategy = ReplaceStrategy::NoBackup;
        plan.push(change);
        let store = Backups::at(dir.path().join("backups"));
        assert_eq!(
            write_plan(&plan, "s", Some(&store), &|_| {}).unwrap(),
            Vec::<(PathBuf, PathBuf)>::new()
        );
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["abc.json".to_string()]);
        assert_eq!(fs::read_to_string(&rec).unwrap(), "{\"status\": \"clean\"}");
    }

    #[test]
    fn a_removal_that_cannot_be_made_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{}").unwrap();
        // Something in the way of the folder's probe (made once, with the
        // first removed file's name): as when the folder cannot be written
        // (which root, running these tests, would not notice).
        let blocker = sibling(&a, &format!(".gk-tmp-{}", std::process::id()));
        fs::create_dir(&blocker).unwrap();
        let mut plan = Plan::new("test");
        plan.push(FileChange::text(&a, Some("{}".into()), None, "test"));
        plan.push(FileChange::text(&b, Some("{}".into()), None, "test"));
        let err = write_plan(&plan, "s", None, &|_| {}).unwrap_err();
        assert!(err.message().contains("cannot be written"), "{err}");
        assert!(a.exists() && b.exists());
    }

    #[test]
    fn move_aside_first_keeps_the_old_copy() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("gk.exe");
        fs::write(&exe, b"old").unwrap();
        let mut plan = Plan::new("test");
        plan.push(FileChange {
            path: exe.clone(),
            old: Some(b"old".to_vec()),
            new: Some(b"new".to_vec()),
            binary: true,
            create_mode: 0o755,
            strategy: ReplaceStrategy::MoveAsideFirst,
            reason: String::new(),
        });
        let (_keep, store) = backups();
        let kept = write_plan(&plan, "s", Some(&store), &|_| {}).unwrap();
        assert_eq!(fs::read(&exe).unwrap(), b"new");
        // Nothing was running it: the moved copy is gone, nothing kept.
        assert_eq!(kept, Vec::<(PathBuf, PathBuf)>::new());
        assert!(!dir.path().join("gk.exe.gk-old-s").exists());
        assert!(store.list().is_empty(), "a program is not backed up");
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_that_lands_right_before_the_rename_is_not_lost() {
        // Another program writes the file after gk's check and backup, just
        // before gk's rename (the window the attack widened with a delay).
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        fs::write(&a, "{}").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"gk\":1}"));
        let seams = Seams {
            before_check: &|_| {},
            before_rename: &|p: &Path| fs::write(p, "{\"theirs\":1}").unwrap(),
            ..Seams::none()
        };
        let err = write_plan_with(&plan, "s", None, &seams).unwrap_err();
        assert!(err.message().contains("changed since the plan"), "{err}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "{\"theirs\":1}");
        // No backup of a file gk did not change, no temp file.
        assert_eq!(names_in(dir.path()), vec!["a.json".to_string()]);
    }

    /// A task record that its session writes again after gk's last look
    /// at it, before gk removes or replaces it (the natural window is a
    /// fraction of a millisecond; the seam holds it open).
    #[test]
    fn a_record_written_after_the_last_check_is_never_lost() {
        let dir = tempfile::tempdir().unwrap();
        let (gone, cleaned) = (dir.path().join("a.json"), dir.path().join("b.json"));
        fs::write(&gone, "{\"status\":\"clean\"}").unwrap();
        fs::write(&cleaned, "{\"status\":\"in_progress\"}").unwrap();
        let record = |path: &Path, old: &str, new: Option<&str>| FileChange {
            strategy: ReplaceStrategy::NoBackup,
            ..FileChange::text(path, Some(old.into()), new.map(String::from), "record")
        };
        let mut plan = Plan::new("test");
        plan.push(record(&gone, "{\"status\":\"clean\"}", None));
        plan.push(record(
            &cleaned,
            "{\"status\":\"in_progress\"}",
            Some("{\"status\":\"clean\"}"),
        ));
        let session_writes = |p: &Path| fs::write(p, "{\"status\":\"new work\"}").unwrap();
        let seams = Seams {
            after_check: &session_writes,
            ..Seams::none()
        };
        let written = write_plan_with(&plan, "s", None, &seams).unwrap();
        for path in [&gone, &cleaned] {
            assert_eq!(
                fs::read_to_string(path).unwrap(),
                "{\"status\":\"new work\"}",
                "{}",
                path.display()
            );
        }
        assert_eq!(written.skipped, vec![gone.clone(), cleaned.clone()]);
        assert_eq!(
            names_in(dir.path()),
            vec!["a.json".to_string(), "b.json".to_string()]
        );
        // Left alone, the same plan removes and rewrites them.
        fs::write(&gone, "{\"status\":\"clean\"}").unwrap();
        fs::write(&cleaned, "{\"status\":\"in_progress\"}").unwrap();
        let written = write_plan_with(&plan, "s", None, &Seams::none()).unwrap();
        assert!(written.skipped.is_empty());
        assert!(!gone.exists());
        assert_eq!(
            fs::read_to_string(&cleaned).unwrap(),
            "{\"status\":\"clean\"}"
        );
        assert_eq!(names_in(dir.path()), vec!["b.json".to_string()]);
    }

    #[test]
    fn what_another_run_already_did_is_done() {
        // Two uninstalls at once: one removes the file (or writes the same
        // edit) while the other is on its way; the second run is not an error.
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        for seam_at_rename in [false, true] {
            fs::write(&a, "{}").unwrap();
            fs::write(&b, "old").unwrap();
            let mut plan = Plan::new("test");
            plan.push(edit(&a, "{}", "{\"x\":1}"));
            plan.push(FileChange::text(&b, Some("old".into()), None, "remove"));
            let other_run = |p: &Path| {
                if p == a {
                    fs::write(&a, "{\"x\":1}").unwrap();
                } else {
                    fs::remove_file(&b).unwrap();
                }
            };
            let nothing = |_: &Path| {};
            let seams = if seam_at_rename {
                Seams {
                    before_check: &nothing,
                    before_rename: &other_run,
                    ..Seams::none()
                }
            } else {
                Seams {
                    before_check: &other_run,
                    before_rename: &nothing,
                    ..Seams::none()
                }
            };
            let written = write_plan_with(&plan, "s", None, &seams).unwrap();
            assert_eq!(written.already, vec![a.clone(), b.clone()]);
            assert_eq!(
                written.kept,
                Vec::<(PathBuf, PathBuf)>::new(),
                "no backup of a file gk did not change"
            );
            assert_eq!(fs::read_to_string(&a).unwrap(), "{\"x\":1}");
            assert!(!b.exists());
            assert_eq!(names_in(dir.path()), vec!["a.json".to_string()]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn removing_a_link_removes_the_link_and_keeps_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("mine");
        let link = dir.path().join("gk");
        fs::write(&target, "program").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut plan = Plan::new("test");
        plan.push(FileChange {
            path: link.clone(),
            old: Some(b"program".to_vec()),
            new: None,
            binary: true,
            create_mode: 0o755,
            strategy: ReplaceStrategy::InPlace,
            reason: String::new(),
        });
        assert_eq!(
            write_plan(&plan, "s", None, &|_| {}).unwrap(),
            Vec::<(PathBuf, PathBuf)>::new()
        );
        assert!(
            fs::symlink_metadata(&link).is_err(),
            "the link is still there"
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "program");
    }

    #[test]
    fn a_leftover_goes_only_when_nothing_says_its_run_is_alive() {
        use Sign::*;
        assert!(over_by(Over, Over));
        assert!(over_by(Over, Unknown), "Windows: the free lock tells");
        assert!(
            over_by(Unknown, Over),
            "no locks: the dead process id tells"
        );
        assert!(!over_by(Unknown, Unknown));
        assert!(!over_by(Alive, Over), "a held lock wins over a reused id");
        assert!(!over_by(Over, Alive));
        assert!(!over_by(Alive, Unknown));
    }

    #[test]
    fn leftovers_of_dead_runs_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        fs::write(&a, "{}").unwrap();
        // No process has this id (above every pid_max, within pid_t).
        let dead = dir.path().join("a.json.gk-tmp-2000000000");
        fs::write(&dead, "half").unwrap();
        // This process is alive.
        let own = sibling(&a, &format!(".gk-tmp-{}", std::process::id()));
        fs::write(&own, "mine").unwrap();
        // A run whose id looks dead but that holds its lock.
        let locked = dir.path().join("a.json.gk-tmp-2000000001");
        let holder = fs::File::create(&locked).unwrap();
        let lock_works = holder.try_lock().is_ok();
        // Names that are not gk's temp files.
        for other in [
            "a.json.gk-tmp-",
            "a.json.gk-tmp-12x",
            "b.json.gk-tmp-2000000000",
        ] {
            fs::write(dir.path().join(other), "x").unwrap();
        }
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{}"));
        let removed = remove_leftovers(&plan);
        let mut want = vec![dead.clone()];
        if !lock_works {
            eprintln!("no file locks here: the held lock cannot be told from none");
            want.push(locked.clone());
        }
        assert_eq!(removed, want);
        assert!(own.exists());
        assert_eq!(locked.exists(), lock_works);
        assert!(dir.path().join("a.json.gk-tmp-12x").exists());
        assert!(dir.path().join("b.json.gk-tmp-2000000000").exists());
        drop(holder);
    }

    #[test]
    fn a_file_another_program_holds_open_for_a_moment_is_still_replaced() {
        // A reader (Claude Code, an editor) has settings.json open while gk
        // renames its new copy over it; it lets go 100 ms later. Windows
        // without POSIX rename (FAT, network drives, Wine) refuses the
        // rename while the file is open.
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        fs::write(&a, "old").unwrap();
        let reader = fs::File::open(&a).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(reader);
        });
        atomic_write(&a, b"new", 0o644).unwrap();
        release.join().unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new");
        assert_eq!(names_in(dir.path()), vec!["a.json".to_string()]);
    }

    #[test]
    fn a_temp_file_is_locked_while_it_waits_for_its_rename() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let (tmp, file) = write_temp(&a, b"new", 0o644).unwrap();
        assert!(matches!(
            fs::File::open(&tmp).unwrap().try_lock_shared(),
            Err(fs::TryLockError::WouldBlock)
        ));
        // The lock keeps no reader out (on Windows, where locks are
        // mandatory, a lock over the data would): the file is renamed into
        // place while still open.
        assert_eq!(fs::read(&tmp).unwrap(), b"new");
        fs::rename(&tmp, &a).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new");
        assert!(matches!(
            fs::File::open(&a).unwrap().try_lock_shared(),
            Err(fs::TryLockError::WouldBlock)
        ));
        drop(file);
        let tmp = a.clone();
        assert!(fs::File::open(&tmp).unwrap().try_lock_shared().is_ok());
    }

    #[test]
    fn a_file_that_cannot_be_written_stops_the_run_before_any_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{}").unwrap();
        // Something in the way of b's temp file: b cannot be written, which
        // only shows when writing (like a folder without write permission).
        let blocker = sibling(&b, &format!(".gk-tmp-{}", std::process::id()));
        fs::create_dir(&blocker).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        assert!(write_plan(&plan, "s", None, &|_| {}).is_err());
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let blocker_name = blocker.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            names,
            vec!["a.json".to_string(), "b.json".to_string(), blocker_name]
        );
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
    }
}
