//! The gk program copied into `<claude dir>/hooks/` (or, for the managed
//! channel, to its machine-wide path): how it is put in and taken out, how
//! it is replaced on each platform, and how its version is read back from
//! the bytes without running it (gk never starts a process outside the
//! smoke test).

use std::path::Path;

use crate::change::fs::read_current;
use crate::change::plan::{FileChange, ReplaceStrategy};
use crate::platform::Os;
use crate::version::embedded_version;

/// How the installed copy is replaced or removed on `os`. On Windows the
/// copy may be running (a hook fired in an open Claude Code session): it
/// cannot be overwritten or deleted then, but it can be renamed.
pub fn replace_strategy(os: Os) -> ReplaceStrategy {
    if os.is_windows() {
        ReplaceStrategy::MoveAsideFirst
    } else {
        ReplaceStrategy::InPlace
    }
}

/// [`crate::setup::parts::Part::Program`] put in at `at`, gk's program
/// for `os` (a user's copy or the machine-wide one): `bytes` (the running
/// gk's, read only when needed) in place, unless `replace` refuses the
/// program there now (its bytes, if any). `shared_place`: `at` is a
/// folder other programs install to (the machine-wide copy's, on PATH),
/// where a file that is no gk build is another program named gk: it is
/// refused, as [`take_out`] leaves it (replacing it would lose it for
/// good: no program is backed up). In `<claude dir>/hooks/`, gk's own
/// folder, such a file is a broken or hand-made copy, and is replaced.
pub fn put_in(
    at: &Path,
    os: Os,
    bytes: impl FnOnce() -> crate::error::Result<Vec<u8>>,
    replace: impl FnOnce(Option<&[u8]>) -> bool,
    shared_place: bool,
    reason: &str,
) -> crate::error::Result<Option<FileChange>> {
    let old = read_current(at, crate::bounded::PROGRAM_LIMIT)?;
    if shared_place
        && old
            .as_deref()
            .is_some_and(|b| embedded_version(b).is_none())
    {
        return Err(crate::error::Error::refused(format!(
            "{} is another program (it carries no gk version): gk does not replace it; move it away and run the command again",
            at.display()
        )));
    }
    if !replace(old.as_deref()) {
        return Ok(None);
    }
    Ok(Some(program_change(at, os, old, Some(bytes()?), reason)))
}

/// [`crate::setup::parts::Part::Program`] taken out of `at`: only a gk
/// build goes; any other file there stays, and the note says so. One
/// that is absent is in the plan as left so, and checked so when the plan
/// is written (another run that puts the program in meanwhile stops this
/// one).
pub fn take_out(
    at: &Path,
    os: Os,
    reason: &str,
) -> crate::error::Result<(Option<FileChange>, Option<String>)> {
    let old = read_current(at, crate::bounded::PROGRAM_LIMIT)?;
    if old
        .as_deref()
        .is_some_and(|b| embedded_version(b).is_none())
    {
        let note = format!(
            "left {} in place: it does not look like a gk build",
            at.display()
        );
        return Ok((None, Some(note)));
    }
    Ok((Some(program_change(at, os, old, None, reason)), None))
}

/// The change of the program file at `at` from `old` to `new`.
fn program_change(
    at: &Path,
    os: Os,
    old: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
    reason: &str,
) -> FileChange {
    FileChange {
        path: at.to_path_buf(),
        old,
        new,
        binary: true,
        create_mode: 0o755,
        strategy: replace_strategy(os),
        reason: reason.into(),
    }
}

/// Copies of the gk program that earlier runs moved aside because they
/// were running (`<binary>.gk-old-<YYYYmmdd-HHMMSS>[-n]` beside `binary`),
/// as removals for a plan. Only gk's own: the exact name pattern, a regular
/// file (not a link), and bytes that carry gk's version marker. Each is
/// removed unless it is still running; then a later run tries again.
pub fn leftover_copies(binary: &Path) -> crate::error::Result<Vec<FileChange>> {
    let (Some(dir), Some(name)) = (binary.parent(), binary.file_name()) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{}.gk-old-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.strip_prefix(&prefix).is_some_and(is_stamp))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let path = dir.join(&n);
        let is_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if !is_file {
            continue;
        }
        let Some(bytes) = read_current(&path, crate::bounded::PROGRAM_LIMIT)? else {
            continue;
        };
        if embedded_version(&bytes).is_none() {
            continue;
        }
        out.push(FileChange {
            path,
            old: Some(bytes),
            new: None,
            binary: true,
            create_mode: 0o755,
            strategy: ReplaceStrategy::RemoveUnlessRunning,
            reason: "a copy of gk an earlier run moved aside while it ran".into(),
        });
    }
    Ok(out)
}

/// `YYYYmmdd-HHMMSS`, optionally followed by `-<n>` (see `apply::free_sibling`).
fn is_stamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if b.len() < 15 || !digits(0..8) || b[8] != b'-' || !digits(9..15) {
        return false;
    }
    match &s[15..] {
        "" => true,
        rest => rest
            .strip_prefix('-')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_moves_the_running_copy_aside() {
        assert_eq!(
            replace_strategy(Os::Windows),
            ReplaceStrategy::MoveAsideFirst
        );
        assert_eq!(replace_strategy(Os::Linux), ReplaceStrategy::InPlace);
        assert_eq!(replace_strategy(Os::MacOs), ReplaceStrategy::InPlace);
    }

    #[test]
    fn only_gks_own_moved_aside_copies_are_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("gk.exe");
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        for name in [
            "gk.exe.gk-old-20260101-120000",
            "gk.exe.gk-old-20260101-120000-2",
        ] {
            std::fs::write(dir.path().join(name), &own).unwrap();
        }
        // Not gk's: another program's bytes, other names, a folder.
        std::fs::write(
            dir.path().join("gk.exe.gk-old-20260101-130000"),
            b"a user's file",
        )
        .unwrap();
        for name in [
            "gk.exe.gk-old-backup",
            "gk.exe.gk-old-20260101-1200",
            "gk.exe.gk-old-20260101-120000-",
            "other.exe.gk-old-20260101-120000",
            "gk.exe.gk-backup-20260101-120000",
        ] {
            std::fs::write(dir.path().join(name), &own).unwrap();
        }
        std::fs::create_dir(dir.path().join("gk.exe.gk-old-20260101-140000")).unwrap();
        let found: Vec<String> = leftover_copies(&bin)
            .unwrap()
            .iter()
            .map(|c| {
                assert_eq!(c.strategy, ReplaceStrategy::RemoveUnlessRunning);
                assert_eq!(c.new, None);
                c.path.file_name().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        assert_eq!(
            found,
            [
                "gk.exe.gk-old-20260101-120000",
                "gk.exe.gk-old-20260101-120000-2"
            ]
        );
        assert_eq!(
            leftover_copies(&dir.path().join("none/gk.exe")).unwrap(),
            vec![]
        );
    }

    #[test]
    fn version_is_read_from_bytes() {
        // Assembled at run time so this test binary does not carry a second marker.
        let bytes: Vec<u8> = b"erom\x003.2.1=noisrev-dliub-kg\0knuj"
            .iter()
            .rev()
            .copied()
            .collect();
        assert_eq!(embedded_version(&bytes).as_deref(), Some("1.2.3"));
        assert_eq!(embedded_version(b"no marker here"), None);
    }

    #[test]
    fn the_running_test_binary_carries_its_version() {
        let exe = std::env::current_exe().unwrap();
        let bytes = std::fs::read(exe).unwrap();
        assert_eq!(
            embedded_version(&bytes).as_deref(),
            Some(env!("CARGO_PKG_VERSION"))
        );
    }
}
