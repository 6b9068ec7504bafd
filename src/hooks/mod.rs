//! The hot path: `gk hook prompt` (UserPromptSubmit) and `gk hook stop`
//! (Stop). Reads stdin and at most two files, prints one JSON line, exits 0.
//! Nothing in this folder may spawn a process, open a connection or write a
//! file (see docs/hooks.md, "How the prime directive is kept").

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    Prompt,
    Stop,
}

/// Run one hook; returns the process exit code (always 0).
pub fn run(_hook: Hook) -> u8 {
    0
}

/// `gk rules`.
pub fn print_rules() -> crate::error::Result<u8> {
    Err(crate::error::Error::new("gk rules is not built yet"))
}

/// `gk explain`.
pub fn explain(_prompt: &str) -> crate::error::Result<u8> {
    Err(crate::error::Error::new("gk explain is not built yet"))
}
