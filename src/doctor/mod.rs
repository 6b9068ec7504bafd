//! `gk doctor`: reads every settings scope and gk's files, reports findings
//! with stable codes, and with `--fix` hands a plan to the install engine.

pub mod smoke;

use crate::cli::{ColorChoice, DoctorArgs};
use crate::error::{Error, Result};

pub fn run(_args: &DoctorArgs, _color: ColorChoice) -> Result<u8> {
    Err(Error::new("gk doctor is not built yet"))
}
