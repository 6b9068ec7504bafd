//! Install, uninstall and the enable/disable switches: each builds a plan of
//! file changes that goes through one show → confirm → atomic-write path.
//!
//! # The change engine (also used by `gk doctor --fix`)
//!
//! 1. Build a [`plan::Plan`] — pure: read every file, compute every new
//!    text, push one [`plan::FileChange`] per file (old bytes, new bytes;
//!    `None` for "absent"). Any error while planning means nothing is
//!    written. The edits themselves are pure text → text functions:
//!    [`settings_edit::add_hooks`] / [`settings_edit::remove_hooks`],
//!    [`claude_md::insert_section`] / [`claude_md::remove_section`],
//!    [`switch::set_enabled`].
//! 2. Hand it to [`apply::execute`] with [`apply::ChangeOptions`] (from
//!    `--yes`, `--dry-run`, `--check`) and the `--color` choice. It shows
//!    the action list and a unified diff per text file with secrets masked,
//!    asks (default no; refuses without a terminal unless `--yes`), checks
//!    nothing changed underneath, backs up, and writes atomically.
//! 3. [`apply::Outcome::exit_code`] gives the process exit code.
//!
//! ```ignore
//! let mut plan = Plan::new("gk doctor --fix");
//! plan.push(FileChange::text(&path, Some(old), Some(new), "remove duplicate hook"));
//! let outcome = apply::execute(&plan, &ChangeOptions { yes, dry_run, check: false }, color)?;
//! Ok(outcome.exit_code())
//! ```

pub mod apply;
pub mod binary;
pub mod claude_md;
pub mod plan;
pub mod settings_edit;
pub mod switch;

use crate::cli::{ColorChoice, InstallArgs, SwitchArgs, UninstallArgs};
use crate::error::{Error, Result};

pub fn run_install(_args: &InstallArgs, _color: ColorChoice) -> Result<u8> {
    Err(Error::new("gk install is not built yet"))
}

pub fn run_uninstall(_args: &UninstallArgs, _color: ColorChoice) -> Result<u8> {
    Err(Error::new("gk uninstall is not built yet"))
}

pub fn run_switch(_args: &SwitchArgs, _enable: bool, _color: ColorChoice) -> Result<u8> {
    Err(Error::new("gk enable/disable is not built yet"))
}
