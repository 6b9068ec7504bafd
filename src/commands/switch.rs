//! `gk enable` and `gk disable`: switch gk's hooks off and on again where
//! the client reads them, through the one plan → diff → confirm → write path.

use crate::change::apply::execute;
use crate::change::fs::{refusal, text_of};
use crate::change::plan::{FileChange, Plan};
use crate::change::render::Style;
use crate::cli::{ColorChoice, SwitchArgs};
use crate::console::Console;
use crate::edit::switch;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::machine::Machine;

pub fn run_switch(
    args: &SwitchArgs,
    enable: bool,
    color: ColorChoice,
    env: &Env,
    c: &mut Console<'_>,
) -> Result<u8> {
    let m = Machine::from_env(env)?;
    let kind = args.which;
    let path = m.paths.config_file();
    // The hooks' own limit: never edit a gk.json the hooks would not read,
    // nor make one they would not read.
    let limit = crate::hooks::config::MAX_CONFIG_BYTES;
    let too_large = |what: &str| {
        Error::refused(format!(
            "{}: {what} larger than {}, the most of gk.json the hooks read (they would ignore it and keep the hook on)",
            path.display(),
            crate::bounded::size_text(limit)
        ))
    };
    let old = match crate::bounded::read(&path, limit) {
        Ok(c) => Some(text_of(&path, c.bytes)?),
        Err(crate::bounded::ReadError::NotFound) => None,
        Err(crate::bounded::ReadError::TooLarge { .. }) => return Err(too_large("it is")),
        Err(e) => return Err(refusal(&path, &e)),
    };
    let new = switch::set_enabled(&path, old.as_deref(), kind, enable)?;
    if new.as_ref().is_some_and(|t| t.len() as u64 > limit) {
        return Err(too_large("the edit would make it"));
    }
    // What the hooks will make of the file, not what this editor makes of
    // it: a number or a depth serde_json refuses voids the whole file for
    // them, an explicit `"enabled": false` included, where this editor
    // reads it fine. The same check answers "already switched off".
    if let Some(text) = new.as_deref() {
        let seen = crate::hooks::config::for_hooks(&path, as_read(text));
        if seen.config.enabled(kind) != enable {
            // The place is named in the file as it is on disk (as doctor and
            // the hooks name it), not in the edit that was not written.
            let on_disk = old
                .as_deref()
                .and_then(|t| crate::hooks::config::for_hooks(&path, as_read(t)).error);
            let why = on_disk
                .or(seen.error)
                .map_or_else(|| path.display().to_string(), |e| e.to_string());
            return Err(Error::refused(format!(
                "{}; the hooks cannot read gk.json, so the {} hook would stay {}; mend the file first",
                crate::text::one_line_ends(&why, 400),
                kind.arg(),
                if enable { "off" } else { "on" }
            )));
        }
    }
    let verb = if enable { "enable" } else { "disable" };
    let mut plan = Plan::new(&format!("gk {verb} {}", kind.arg())).when_idle(format!(
        "the {} hook is already switched {}; nothing to do",
        kind.arg(),
        if enable { "on" } else { "off" }
    ));
    plan.push(FileChange::text(
        &path,
        old,
        new,
        &format!("{verb} the {} hook", kind.arg()),
    ));
    let outcome = execute(
        &plan,
        &crate::commands::options(&args.change),
        Style::for_stdout(color.forced(), env),
        env,
        c,
    )?;
    Ok(outcome.exit_code())
}

/// gk.json's text as the hooks' reader gets it: one byte order mark taken
/// off (`load_for_hooks` takes one off before it parses).
fn as_read(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
