//! gk's version as its binaries carry it: a marker compiled into every
//! build, read back from a copy's bytes without running it (gk never starts
//! a process outside the smoke test). Install, doctor and the plan display
//! all read it here.

/// A marker compiled into every gk binary so install can tell which
/// version an installed copy is. Built so that the searched-for prefix
/// appears in the binary only here (the search assembles it at run time).
#[used]
static VERSION_MARKER: &[u8] =
    concat!("\0gk-build-version=", env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// The version recorded in a gk binary's bytes, if it carries the marker.
pub fn embedded_version(bytes: &[u8]) -> Option<String> {
    std::hint::black_box(VERSION_MARKER);
    // Stored reversed so the literal itself never matches.
    let prefix: Vec<u8> = b"=noisrev-dliub-kg\0".iter().rev().copied().collect();
    let prefix = prefix.as_slice();
    // memmem, not a window-by-window compare: this runs over a whole
    // program (tens of MB for a debug build), several times per install.
    let start = memchr::memmem::find(bytes, prefix)? + prefix.len();
    let rest = &bytes[start..];
    let end = memchr::memchr(0, rest)?;
    let version = std::str::from_utf8(&rest[..end]).ok()?;
    let plausible = !version.is_empty()
        && version.len() < 40
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    plausible.then(|| version.to_string())
}
