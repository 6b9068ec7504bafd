//! What the hook, state and report modules share beyond [`TestEnv`]: the
//! state folder their runs point `GK_STATE_DIR` at, and a named pipe made
//! without a tool.

use std::path::PathBuf;

use super::TestEnv;

/// The state folder (`GK_STATE_DIR`) of the tests that set one:
/// `<root>/state`, beside the home folder (not made here).
pub fn state_dir(env: &TestEnv) -> PathBuf {
    env.root().join("state")
}

/// A named pipe at `path` (no `mkfifo` program needed).
#[cfg(unix)]
pub fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(
        made,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}
