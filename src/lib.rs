//! gk as a library: the binary in `main.rs` only dispatches to these
//! modules. The layers, each importing only those below it (the house is
//! drawn in docs/maintainers/the-house.md; `scripts/check-layers.py` holds
//! the code to it):
//!
//! 1. ground: `error`, `bounded`, `text`, `platform`, `version`,
//!    `console` (the one output and input handle);
//! 2. `env` (what gk reads of its process, read once in `main`), `paths`,
//!    `hookcmd`, `cli` (the arguments, as data), `machine`;
//! 3. `settings` (the read model and its one schema check), `smoke`;
//! 4. `registry` (what the client loads and runs; read-only);
//! 5. `hooks` (the hot path; reads only), then `report` (counts from the
//!    client's transcripts; reads nothing itself);
//! 6. `change` (plans, their display, atomic writes, backups), `edit` (pure
//!    text editors of the files gk touches);
//! 7. `records` (the task records and their plans), `setup` (what gk
//!    wants, and the install/uninstall plans);
//! 8. `doctor`, then `commands` (install, uninstall, enable/disable, state,
//!    rules, explain).
//!
//! Everything is crate-private; [`testing`] names what the integration
//! tests and fuzz targets call directly.
//!
//! Nothing in the library prints with `print!`/`eprintln!` or reads the
//! process's environment, folder or handles: commands write through a
//! `console::Console` and read an `env::Env`, both made in
//! `commands::main` (scripts/check-layers.py refuses those std calls
//! anywhere else).

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

pub use commands::main;
#[doc(hidden)]
pub mod testing;
