//! gk as a library: the binary in `main.rs` only dispatches to these
//! modules. They stand in layers, lowest first; each imports only modules
//! of the layers below its own. `scripts/check-layers.py` holds the list
//! (and checks this one and docs/maintainers/the-house.md against it);
//! the-house.md says what each module holds.
//!
//! 0. `error`, `bounded`, `text`, `platform`, `version`: the ground (one
//!    error type, the bounded reader, the text sanitiser, the platform as a
//!    value, the version marker)
//! 1. `paths`: where the client and gk keep their files
//! 2. `hookcmd`: what a registered command runs, whatever its spelling
//! 3. `cli`: the command line as data
//! 4. `machine`: the machine's facts, read once
//! 5. `settings`, `smoke`: the read model of a settings file and its
//!    checks; the one runner that starts a process
//! 6. `registry`: what the client loads and runs; reads only
//! 7. `hooks`: the hot path; reads only
//! 8. `report`: counts from the client's transcripts; opens nothing itself
//! 9. `change`, `edit`: plans, their display, atomic writes and backups;
//!    pure text editors of the files gk touches
//! 10. `records`: the task records and their plans
//! 11. `setup`: what gk wants on a machine, and the install and uninstall
//!     plans
//! 12. `doctor`: findings and `--fix`
//! 13. `commands`: what a person runs, and the dispatch
//! 14. `testing`: the door for the integration tests and fuzz targets
//!
//! Everything else is crate-private; [`testing`] names what the
//! integration tests and fuzz targets call directly.

pub(crate) mod bounded;
pub(crate) mod change;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod doctor;
pub(crate) mod edit;
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
