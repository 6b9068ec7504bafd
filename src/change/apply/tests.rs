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

/// An install that found the drop-in in place plans only the program; an
/// uninstall that removes both runs between its plan and its write. The
/// install must not put the program back beside no drop-in: no order of
/// the two runs gives that.
#[test]
fn a_file_the_plan_leaves_alone_that_changed_since_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("gk");
    let dropin = dir.path().join("gk.json");
    fs::write(&dropin, "{\"hooks\":{}}").unwrap();
    let mut plan = Plan::new("test");
    plan.push(FileChange::text(
        &program,
        None,
        Some("program".into()),
        "test",
    ));
    plan.push(FileChange::text(
        &dropin,
        Some("{\"hooks\":{}}".into()),
        Some("{\"hooks\":{}}".into()),
        "test",
    ));
    fs::remove_file(&dropin).unwrap();
    let (_keep, store) = backups();
    let err = write_plan(&plan, "s", Some(&store), &|_| {}).unwrap_err();
    assert!(err.message().contains("changed since the plan"), "{err}");
    assert!(!program.exists());
    assert!(!dropin.exists());
    // Left as the plan found it, the same plan is written.
    fs::write(&dropin, "{\"hooks\":{}}").unwrap();
    write_plan(&plan, "s", Some(&store), &|_| {}).unwrap();
    assert_eq!(fs::read_to_string(&program).unwrap(), "program");
}

/// A file another handle holds open is gone from its folder once removed.
/// On Windows (FAT, network drives, Wine) a plain delete would leave its
/// name until the handle closes, and a run planning meanwhile would still
/// find it; gk renames it aside first.
#[test]
fn a_removed_file_that_is_held_open_is_gone_from_its_name_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let dropin = dir.path().join("gk.json");
    fs::write(&dropin, "{}").unwrap();
    let held = fs::File::open(&dropin).unwrap();
    remove_if_there(&dropin).unwrap();
    assert!(
        fs::symlink_metadata(&dropin).is_err(),
        "the name is still there"
    );
    drop(held);
    // Nothing of it is left once the handle is closed.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A file Windows refuses to delete (read-only) is reported and left at
/// its name: not renamed aside and abandoned there.
#[cfg(windows)]
#[test]
fn a_file_windows_will_not_delete_stays_at_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let dropin = dir.path().join("gk.json");
    fs::write(&dropin, "{}").unwrap();
    let mut perms = fs::metadata(&dropin).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&dropin, perms.clone()).unwrap();
    assert!(remove_if_there(&dropin).is_err());
    assert_eq!(fs::read_to_string(&dropin).unwrap(), "{}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(&dropin, perms).unwrap();
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
        #[allow(clippy::print_stderr)] // the test's own note
        {
            eprintln!("no file locks here: the held lock cannot be told from none");
        }
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

/// gk's own note (the install record), removed with no backup, that
/// another run wrote since the plan (a second Claude folder's install,
/// sharing the hooks folder, added its part): the run stops with nothing
/// written, rather than skip the note as a task record is skipped and go
/// on to remove the program the other folder's hooks now run.
#[test]
fn a_note_of_gks_written_by_another_run_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (note, program) = (dir.path().join("gk-install.json"), dir.path().join("gk"));
    fs::write(&note, "{\"a\":1}").unwrap();
    fs::write(&program, "program").unwrap();
    let mut plan = Plan::new("test");
    plan.push(FileChange {
        strategy: ReplaceStrategy::OwnNoBackup,
        ..FileChange::text(&note, Some("{\"a\":1}".into()), None, "note")
    });
    plan.push(FileChange::text(
        &program,
        Some("program".into()),
        None,
        "program",
    ));
    let other_run = |p: &Path| {
        if p.ends_with("gk-install.json") {
            fs::write(p, "{\"a\":1,\"b\":2}").unwrap();
        }
    };
    let seams = Seams {
        before_check: &other_run,
        ..Seams::none()
    };
    let err = write_plan_with(&plan, "s", None, &seams).unwrap_err();
    assert!(err.message().contains("changed since the plan"), "{err}");
    assert_eq!(fs::read_to_string(&note).unwrap(), "{\"a\":1,\"b\":2}");
    assert_eq!(fs::read_to_string(&program).unwrap(), "program");
    assert_eq!(
        names_in(dir.path()),
        vec!["gk".to_string(), "gk-install.json".to_string()]
    );
}

/// A link put at a record's name in the state folder after the plan was
/// made (Claude writes that folder): at each of the write's three last
/// looks or before it begins, the link is not followed, nothing outside the folder is
/// written or created, the link stays, and the record is reported passed
/// over. The shared record (`NoBackup`) is still edited through a link.
#[cfg(unix)]
#[test]
fn a_link_swapped_in_after_the_plan_is_never_followed_in_the_state_folder() {
    use std::os::unix::fs::symlink;
    type Seam<'a> = &'a dyn Fn(&Path);
    // Seam 3: at the confirmation, before the write begins.
    for seam in 0..4 {
        for (old, new) in [
            (
                Some("{\"status\":\"in_progress\"}"),
                Some("{\"status\":\"clean\"}"),
            ),
            (Some("{\"status\":\"clean\"}"), None),
            (None, Some("{\"status\":\"in_progress\"}")),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let state = dir.path().join("state");
            fs::create_dir(&state).unwrap();
            // The planted record was a copy of the file outside (any text
            // counts as a record), so the outside file reads as planned.
            let outside = dir.path().join(".bashrc");
            fs::write(&outside, old.unwrap_or("alias ll='ls -l'\n")).unwrap();
            let absent = dir.path().join("made-outside.txt");
            let rec = state.join("v1.json");
            if let Some(old) = old {
                fs::write(&rec, old).unwrap();
            }
            let mut plan = Plan::new("test");
            plan.push(FileChange {
                strategy: ReplaceStrategy::FolderRecord,
                ..FileChange::text(&rec, old.map(String::from), new.map(String::from), "r")
            });
            // A link to a file outside when there was a record, a dangling
            // one (which a write would create) when there was none.
            let to = if old.is_some() { &outside } else { &absent };
            let swap = |p: &Path| {
                let _ = fs::remove_file(p);
                symlink(to, p).unwrap();
            };
            let nothing = |_: &Path| {};
            let at = |i: usize| -> Seam {
                if i == seam {
                    &swap
                } else {
                    &nothing
                }
            };
            let seams = Seams {
                before_check: at(0),
                before_rename: at(1),
                after_check: at(2),
            };
            if seam == 3 {
                swap(&rec);
            }
            let written = write_plan_with(&plan, "s", None, &seams).unwrap();
            let case = format!("seam {seam}, old {old:?}, new {new:?}");
            assert_eq!(written.skipped, vec![rec.clone()], "{case}");
            assert_eq!(
                fs::read_to_string(&outside).unwrap(),
                old.unwrap_or("alias ll='ls -l'\n"),
                "{case}"
            );
            assert!(!absent.exists(), "{case}");
            assert_eq!(fs::read_link(&rec).unwrap(), *to, "{case}");
            assert_eq!(names_in(&state), vec!["v1.json".to_string()], "{case}");
        }
    }
    // The shared record follows its link, as documented.
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    fs::write(&real, "{\"status\":\"in_progress\"}").unwrap();
    let shared = dir.path().join("task_state.json");
    symlink(&real, &shared).unwrap();
    let mut plan = Plan::new("test");
    plan.push(FileChange {
        strategy: ReplaceStrategy::NoBackup,
        ..edit(
            &shared,
            "{\"status\":\"in_progress\"}",
            "{\"status\":\"clean\"}",
        )
    });
    write_plan_with(&plan, "s", None, &Seams::none()).unwrap();
    assert_eq!(fs::read_to_string(&real).unwrap(), "{\"status\":\"clean\"}");
    assert!(is_link(&shared));
}
