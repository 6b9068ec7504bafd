//! The gk program copied into `<claude dir>/hooks/`: how it is replaced on
//! each platform, and how its version is read back from the bytes without
//! running it (gk never starts a process outside the smoke test).

use crate::install::plan::ReplaceStrategy;
use crate::platform::Os;

/// A marker compiled into every gk binary so install can tell which
/// version an installed copy is. Built so that the searched-for prefix
/// appears in the binary only here (the search assembles it at run time).
#[used]
static VERSION_MARKER: &[u8] =
    concat!("\0gk-build-version=", env!("CARGO_PKG_VERSION"), "\0").as_bytes();

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

/// The version recorded in a gk binary's bytes, if it carries the marker.
pub fn embedded_version(bytes: &[u8]) -> Option<String> {
    std::hint::black_box(VERSION_MARKER);
    // Stored reversed so the literal itself never matches.
    let prefix: Vec<u8> = b"=noisrev-dliub-kg\0".iter().rev().copied().collect();
    let prefix = prefix.as_slice();
    let start = bytes.windows(prefix.len()).position(|w| w == prefix)? + prefix.len();
    let rest = &bytes[start..];
    let end = rest.iter().position(|b| *b == 0)?;
    let version = std::str::from_utf8(&rest[..end]).ok()?;
    let plausible = !version.is_empty()
        && version.len() < 40
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    plausible.then(|| version.to_string())
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
