//! The change engine: the one path by which gk changes files.
//!
//! 1. A command builds a [`plan::Plan`] — pure: read every file, compute
//!    every new text, push one [`plan::FileChange`] per file (old bytes,
//!    new bytes; `None` for "absent"). Any error while planning means
//!    nothing is written. The edits themselves are the pure text → text
//!    functions of [`crate::edit`].
//! 2. [`apply::execute`] shows it ([`render`]: the action list and a
//!    unified diff per text file, secrets masked), asks (default no;
//!    refuses without a terminal unless `--yes`), takes the one lock of
//!    gk's writing runs ([`lock`]), checks nothing changed underneath
//!    (every file of the plan, before any is written), keeps a backup
//!    ([`backup`]) and writes atomically ([`fs`]).
//! 3. [`apply::Outcome::exit_code`] gives the process exit code.
//!
//! This folder knows nothing of what gk wants or of the command line: it
//! imports only the ground modules (`error`, `bounded`, `text`, `version`).

pub mod apply;
pub mod backup;
pub mod fs;
pub mod lock;
pub mod plan;
pub mod render;
