//! The integration tests: one test program, a module per area, one test
//! environment (`common::TestEnv`). The end-to-end programs that drive the
//! real client (`tests/e2e_claude.rs`, `tests/e2e_windows.rs`) stay apart.

mod adversarial;
mod adversarial_plugins;
mod adversarial_text;
mod common;
mod doctor;
mod doctor_state;
mod install;
mod install_fixtures;
mod install_managed;
mod install_permissions;
mod install_safety;
mod snapshots;
