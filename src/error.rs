//! One error type for the commands that are not on the hook path: a plain
//! lowercase sentence that names the file and what was being done, so the
//! user can act on it (`could not read /home/u/.claude/settings.json: …`).

use std::fmt;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }

    /// A command refused before it wrote anything: `message`, then the one
    /// wording every such refusal ends with ("; nothing written").
    pub fn refused(message: impl Into<String>) -> Self {
        Error::new(format!("{}; nothing written", message.into()))
    }

    /// An I/O failure while doing `action` ("read", "write", "rename", …) on `path`.
    pub fn io(action: &str, path: &Path, err: &std::io::Error) -> Self {
        Error::new(format!("could not {action} {}: {err}", path.display()))
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
