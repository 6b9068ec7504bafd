//! Do the programs the registered commands run exist, and is the registered
//! gk this gk? Neither question may start a process (only smoke tests do),
//! so the version is read from the marker every gk build carries in its
//! bytes (install's), and programs on PATH are looked up by hand.

use std::path::Path;

/// The version of the running gk.
pub fn this_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The gk version embedded in a binary's bytes, if it carries one (the
/// marker install also reads; see `crate::version`).
pub fn embedded_version(bytes: &[u8]) -> Option<String> {
    crate::version::embedded_version(bytes)
}

/// The gk version in the file at `path`, read in chunks and stopping at
/// the marker (it sits in the first tenth of a release build), so a check
/// does not read the whole program. Opened and checked by the bounded
/// reader (a named pipe or a device is an error, not a wait) and read no
/// further than [`crate::bounded::PROGRAM_LIMIT`].
pub fn version_of_file(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    const CHUNK: usize = 256 * 1024;
    // Longer than the marker plus any plausible version: a marker cut by a
    // chunk boundary is whole in the next window.
    const OVERLAP: usize = 128;
    let (file, _) = crate::bounded::open(path).map_err(crate::bounded::ReadError::into_io)?;
    let mut file = file.take(crate::bounded::PROGRAM_LIMIT);
    let mut buf = vec![0u8; CHUNK + OVERLAP];
    let mut kept = 0;
    loop {
        let n = file.read(&mut buf[kept..])?;
        if n == 0 {
            return Ok(None);
        }
        let end = kept + n;
        if let Some(v) = embedded_version(&buf[..end]) {
            return Ok(Some(v));
        }
        kept = OVERLAP.min(end);
        buf.copy_within(end - kept..end, 0);
    }
}

/// Is version `a` newer than `b`? Compares the numeric release parts
/// (`1.10.0` > `1.9.3`); a pre-release (`-rc.1`) counts as older than the
/// same release. Unparseable parts compare as 0.
pub fn newer(a: &str, b: &str) -> bool {
    fn key(v: &str) -> (Vec<u64>, bool) {
        let v = v.split('+').next().unwrap_or(v);
        let (release, pre) = match v.split_once('-') {
            Some((r, _)) => (r, true),
            None => (v, false),
        };
        let mut nums: Vec<u64> = release.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        while nums.last() == Some(&0) {
            nums.pop();
        }
        (nums, !pre)
    }
    key(a) > key(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_version_is_the_package_version() {
        assert_eq!(this_version(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn this_build_carries_its_marker() {
        let exe = std::env::current_exe().unwrap();
        let bytes = std::fs::read(exe).unwrap();
        assert_eq!(embedded_version(&bytes).as_deref(), Some(this_version()));
    }

    #[test]
    fn version_is_found_across_chunk_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        for at in [0usize, 100, 256 * 1024 - 10, 256 * 1024 + 5, 700_000] {
            let mut bytes = vec![7u8; 800_000];
            let marker = format!("\0gk-build-{}=9.8.7\0", std::hint::black_box("version"));
            bytes.splice(at..at + marker.len(), marker.bytes());
            let p = dir.path().join("bin");
            std::fs::write(&p, &bytes).unwrap();
            assert_eq!(
                version_of_file(&p).unwrap().as_deref(),
                Some("9.8.7"),
                "at {at}"
            );
        }
        let p = dir.path().join("none");
        std::fs::write(&p, vec![0u8; 300_000]).unwrap();
        assert_eq!(version_of_file(&p).unwrap(), None);
    }

    #[test]
    fn version_order() {
        assert!(newer("0.2.0", "0.1.9"));
        assert!(newer("1.10.0", "1.9.3"));
        assert!(newer("1.0.0", "1.0.0-rc.1"));
        assert!(!newer("0.1.0", "0.1.0"));
        assert!(!newer("0.1", "0.1.0"));
        assert!(!newer("0.0.1", "0.1.0"));
    }
}
