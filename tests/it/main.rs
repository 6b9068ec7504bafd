//! The integration tests: one test program, a module per area, one test
//! environment (`common::TestEnv`). The end-to-end programs that drive the
//! real client (`tests/e2e_claude.rs`, `tests/e2e_windows.rs`) stay apart.

mod adversarial;
mod adversarial_plugins;
mod adversarial_text;
mod common;
mod doctor;
mod doctor_state;
mod follow;
mod hooks;
mod hooks_parity;
mod hooks_prime_directive;
mod hooks_robustness;
mod hooks_session;
mod hooks_switch;
mod in_process;
mod install;
mod install_fixtures;
mod install_managed;
mod install_permissions;
mod install_safety;
mod linear_budgets;
#[cfg(target_os = "linux")]
mod linking;
mod process_start;
mod report;
mod rules_presets;
mod settings_shapes;
mod snap_cli;
mod snap_doctor;
mod snap_hooks;
mod snap_install;
mod snap_plans;
mod snap_plugin;
mod snap_voice;
mod snapshots;
mod state;
mod state_folder;
mod windows_manifests;
#[cfg(unix)]
mod wine_runner;
