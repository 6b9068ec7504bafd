//! gk as a library: the binary in `main.rs` only dispatches to these
//! modules. They stand in layers, lowest first; each imports only modules
//! of the layers below its own. `scripts/check-layers.py` holds the list
//! (and checks this one and docs/maintainers/the-house.md against it);
//! the-house.md says what each module holds.
//!
//! 0. `error`, `text`, `platform`, `version`, `console`: the ground (one
//!    error type, the text sanitiser, the platform as a value, the version
//!    marker, the one output and input handle)
//! 1. `env`, `bounded`: what gk reads of its process, taken in `main` (each
//!    variable looked up when asked); the bounded reader, and where a
//!    folder would be made (looked at, never written)
//! 2. `paths`: where the client and gk keep their files
//! 3. `hookcmd`: what a registered command runs, whatever its spelling
//! 4. `cli`: the command line as data
//! 5. `machine`: the machine's facts, read once
//! 6. `settings`, `smoke`: the read model of a settings file and its
//!    checks; the one runner that starts a process
//! 7. `registry`: what the client loads and runs; reads only
//! 8. `hooks`: the hot path; reads only
//! 9. `report`: counts from the client's transcripts; opens nothing itself
//! 10. `change`, `edit`: plans, their display, atomic writes and backups;
//!     pure text editors of the files gk touches
//! 11. `records`: the task records and their plans
//! 12. `setup`: what gk wants on a machine, and the install and uninstall
//!     plans
//! 13. `doctor`: findings and `--fix`
//! 14. `commands`: what a person runs, and the dispatch
//! 15. `testing`: the door for the integration tests and fuzz targets
//!
//! Everything else is crate-private; [`testing`] names what the
//! integration tests and fuzz targets call directly.
//!
//! Nothing in the library prints with `print!`/`eprintln!` or reads the
//! process's environment, folder or handles: commands write through a
//! `console::Console` and read an `env::Env`, both made in
//! `commands::main` (`scripts/check-layers.py` holds the code to it).

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod bounded;
pub(crate) mod change;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod console;
pub(crate) mod doctor;
pub(crate) mod edit;
pub(crate) mod env;
pub(crate) mod error;
pub(crate) mod hookcmd;
pub(crate) mod hooks;
pub(crate) mod machine;
pub(crate) mod paths;
pub(crate) mod platform;
pub(crate) mod records;
pub(crate) mod registry;
pub(crate) mod report;
pub(crate) mod settings;
pub(crate) mod setup;
pub(crate) mod smoke;
pub(crate) mod text;
pub(crate) mod version;

pub use commands::{main, main_code};
#[doc(hidden)]
pub mod testing;
