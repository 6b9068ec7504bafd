//! Where the program a registration runs lives on this machine. Pure: the
//! file test is injected, so the Windows branch runs in Linux tests and a
//! caller on the hot path decides what a lookup may cost.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::platform::Os;

/// Is `program` (from `hookcmd::Invocation`) an absolute path?
pub fn is_absolute(program: &str) -> bool {
    let b = program.as_bytes();
    program.starts_with('/')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'/' || b[2] == b'\\'))
}

/// Where `program` lives on this machine: the first candidate that exists.
/// Absolute programs are tried as they are (plus `.exe` on Windows); bare
/// names are searched in `path_var` (`PATH`). `exists` is injected so the
/// Windows branch runs in Linux tests.
pub fn locate(
    os: Os,
    program: &str,
    path_var: Option<&OsStr>,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let with_exe = |p: PathBuf| -> Vec<PathBuf> {
        if os.is_windows() && !p.to_string_lossy().to_ascii_lowercase().ends_with(".exe") {
            let mut e = p.clone().into_os_string();
            e.push(".exe");
            vec![PathBuf::from(e), p]
        } else {
            vec![p]
        }
    };
    if is_absolute(program) {
        return with_exe(PathBuf::from(program))
            .into_iter()
            .find(|p| exists(p));
    }
    if program.contains('/') || program.contains('\\') {
        // Relative to a folder we cannot know (Claude Code's cwd): undecided.
        return None;
    }
    let sep = if os.is_windows() { ';' } else { ':' };
    let path_var = path_var?.to_string_lossy().into_owned();
    path_var
        .split(sep)
        .filter(|d| !d.is_empty())
        // Joined with the platform's separator, not the host's: the
        // platform is a value here (Linux tests cover Windows and back).
        .flat_map(|d| {
            let slash = if os.is_windows() { '\\' } else { '/' };
            let d = match os.is_windows() {
                true => d.trim_end_matches(['/', '\\']),
                false => d.trim_end_matches('/'),
            };
            with_exe(PathBuf::from(format!("{d}{slash}{program}")))
        })
        .find(|p| exists(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_programs_per_platform() {
        assert!(is_absolute("/home/u/.claude/hooks/gk"));
        assert!(is_absolute("c:/users/u/.claude/hooks/gk"));
        assert!(is_absolute(r"C:\Users\u\gk.exe"));
        assert!(!is_absolute("gk"));
        assert!(!is_absolute("./gk"));
    }

    #[test]
    fn windows_tries_exe_first() {
        let exists = |p: &Path| p == Path::new("c:/users/u/.claude/hooks/gk.exe");
        assert_eq!(
            locate(Os::Windows, "c:/users/u/.claude/hooks/gk", None, &exists),
            Some(PathBuf::from("c:/users/u/.claude/hooks/gk.exe"))
        );
        assert_eq!(
            locate(Os::Linux, "c:/users/u/.claude/hooks/gk", None, &exists),
            None
        );
    }

    #[test]
    fn bare_names_are_searched_on_path() {
        let exists = |p: &Path| p == Path::new("/usr/local/bin/gk");
        let path = OsStr::new("/usr/bin::/usr/local/bin");
        assert_eq!(
            locate(Os::Linux, "gk", Some(path), &exists),
            Some(PathBuf::from("/usr/local/bin/gk"))
        );
        assert_eq!(locate(Os::Linux, "gk", None, &exists), None);
        let exists = |p: &Path| p == Path::new(r"C:\tools\gk.exe");
        assert!(locate(
            Os::Windows,
            "gk",
            Some(OsStr::new(r"C:\bin;C:\tools")),
            &exists
        )
        .is_some());
    }
}
