//! gk as a library: the binary in `main.rs` only dispatches to these
//! modules, and the integration tests in `tests/` call the pure functions
//! (settings edits, command identity, hook logic) directly as well as
//! through the CLI.

pub mod bounded;
pub mod cli;
pub mod doctor;
pub mod error;
pub mod hookcmd;
pub mod hooks;
pub mod install;
pub mod paths;
pub mod platform;
pub mod presets;
pub mod records;
pub mod registry;
pub mod settings;
pub mod smoke;
pub mod text;
