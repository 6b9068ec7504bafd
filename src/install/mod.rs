//! Install, uninstall and the enable/disable switches: each builds a plan of
//! file changes that goes through one show → confirm → atomic-write path.

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
