//! The hot path: `gk hook prompt` (UserPromptSubmit) and `gk hook stop`
//! (Stop), ports of the Python v5 gatekeeper and state monitor. Each run
//! reads stdin and at most two files (`<claude dir>/hooks/gk.json` and
//! `<claude dir>/hooks/task_state.json`), prints at most one JSON line and
//! exits 0. Nothing in this folder may spawn a process, open a connection or
//! write a file (see docs/hooks.md, "How the prime directive is kept"; a
//! test scans this folder's source).
//!
//! For `gk doctor`, two read-only, side-effect-free entry points report
//! things exactly as the hooks would:
//!
//! - [`load_config`]`(path) -> Result<Config, ConfigError>`: the config the
//!   hooks would use (built-in defaults when the file is absent); the error
//!   displays as `path:line:col: reason`.
//! - [`read_state`]`(path) -> StateFile`, then
//!   [`StateFile::verdict`]`(now, stale_hours) -> StateVerdict`:
//!   missing / unreadable(reason) / no status / bad status(value) /
//!   in progress(stale, age hours) / clean(age hours). `read_state` is the
//!   only I/O (one read and its mtime); `verdict` is pure.

mod config;
mod input;
mod jsonout;
mod keywords;
mod prompt;
mod pytext;
mod state;
mod stop;

use std::io::{IsTerminal, Read, Write};
use std::time::SystemTime;

pub use config::{load_config, Config, ConfigError};
pub use keywords::KeywordSet;
pub use state::{read_state, StateFile, StateRead, StateVerdict};

use crate::paths::ClaudePaths;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    Prompt,
    Stop,
}

/// Run one hook; returns the process exit code, which is always 0. A bug
/// that panics is caught here (main installs a silent panic hook first), so
/// it can neither print to stderr nor change the exit code.
pub fn run(hook: Hook) -> u8 {
    let _ = std::panic::catch_unwind(|| {
        if let Some(out) = answer(hook) {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(out.as_bytes());
            let _ = stdout.flush();
        }
    });
    0
}

/// The hook's stdout, or `None` for no output.
fn answer(hook: Hook) -> Option<String> {
    let mut input = Vec::new();
    // Always drain a piped stdin so Claude Code's write never meets a closed
    // pipe. A terminal is not Claude Code but a person trying the hook by
    // hand: waiting for them to type an event and Ctrl-D would look like a
    // hang, so a terminal is not read (no event: the prompt hook prints
    // nothing, the Stop hook, which ignores stdin, shows the state).
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let _ = stdin.lock().read_to_end(&mut input);
    }
    let paths = ClaudePaths::from_env();
    let loaded = match &paths {
        Some(p) => config::load_for_hooks(&p.config_file()),
        None => config::LoadedConfig {
            config: Config::default(),
            error: None,
        },
    };
    let note = loaded
        .error
        .as_ref()
        .map(|e| format!("gk config ignored, using the built-in defaults: {e}"));
    let config = &loaded.config;
    let state = || match &paths {
        Some(p) => read_state(&p.state_file()),
        None => StateFile {
            read: StateRead::Missing,
            mtime: None,
        },
    };
    respond(
        hook,
        &input,
        config,
        note.as_deref(),
        state,
        SystemTime::now(),
    )
}

/// The pure part of a hook run: what `hook` prints for the bytes `input`
/// on stdin, with `config` (and the line saying why gk.json was ignored,
/// if it was), the task state (read only when the hook needs it) and the
/// time `now`. `None`: print nothing. What the fuzz target
/// `fuzz/fuzz_targets/hook_input.rs` drives.
pub fn respond(
    hook: Hook,
    input: &[u8],
    config: &Config,
    config_note: Option<&str>,
    state: impl FnOnce() -> StateFile,
    now: SystemTime,
) -> Option<String> {
    match hook {
        Hook::Prompt => {
            if !config.prompt.enabled {
                return None;
            }
            let text = String::from_utf8_lossy(input);
            // Not JSON at all: the reference prints nothing, and so does gk.
            let event = input::parse_lenient(&text).ok()?;
            let (msg, ctx) = prompt::respond(
                prompt::prompt_of(&event),
                config,
                &state(),
                now,
                config_note,
            );
            Some(jsonout::prompt_output(&msg, &ctx))
        }
        Hook::Stop => {
            if !config.stop.enabled {
                return None;
            }
            let msg = stop::message(&state(), now, config.stale_hours, config_note);
            Some(jsonout::stop_output(&msg))
        }
    }
}

/// The config `gk rules` and `gk explain` work with: the hooks' view, with
/// the reason on stderr when the file was ignored.
fn effective_config() -> Config {
    let Some(paths) = ClaudePaths::from_env() else {
        return Config::default();
    };
    let loaded = config::load_for_hooks(&paths.config_file());
    if let Some(e) = loaded.error {
        eprintln!("gk: config ignored, the hooks use the built-in defaults: {e}");
    }
    loaded.config
}

/// `gk rules`: the effective config as pretty JSON, itself a valid gk.json.
/// ASCII only (other characters as `\uXXXX`), like the hooks' output, so a
/// Windows console code page cannot garble it on its way into a file.
pub fn print_rules() -> crate::error::Result<u8> {
    let config = effective_config();
    let text = serde_json::to_string_pretty(&config)
        .map_err(|e| crate::error::Error::new(format!("could not print the rules: {e}")))?;
    print_out(&format!("{}\n", jsonout::ascii_only(&text)))?;
    Ok(0)
}

/// Print to stdout; a closed pipe (`gk rules | head`) is not an error, but
/// any other failed write (`gk rules > gk.json` on a full disk) is.
fn print_out(text: &str) -> crate::error::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(crate::error::Error::new(
            format!("could not write to stdout: {e}"),
        )),
        _ => Ok(()),
    }
}

/// `gk explain "<prompt>"`: which rule and keyword fire, in plain text.
pub fn explain(prompt_text: &str) -> crate::error::Result<u8> {
    let config = effective_config();
    print_out(&explanation(prompt_text, &config))?;
    Ok(0)
}

fn explanation(prompt_text: &str, config: &Config) -> String {
    let a = prompt::analyse(prompt_text, config);
    let c = &a.choice;
    let mut out = String::new();
    out.push_str(&format!(
        "check mode: {}\n",
        if a.check_mode {
            "yes ([check] prefix stripped; the task will not be run)"
        } else {
            "no"
        }
    ));
    out.push_str(&format!("words:      {}\n", a.word_count));
    for &i in &a.skipped_for_length {
        let rule = &config.models[i];
        let limit = rule.word_limit(config.haiku_max_words).unwrap_or(0);
        out.push_str(&format!(
            "skipped:    {} (only for prompts of at most {limit} words)\n",
            rule.label
        ));
    }
    match c.rule {
        Some(i) => out.push_str(&format!(
            "model:      {} ({}) -- rule {} of {}, keyword '{}'\n",
            c.label,
            c.model,
            i + 1,
            config.models.len(),
            c.trigger
        )),
        None => out.push_str(&format!(
            "model:      {} ({}) -- default, no rule keyword found\n",
            c.label, c.model
        )),
    }
    out.push_str(&format!("use for:    {}\n", c.purpose));
    match a.effort {
        Some((level, kw)) => out.push_str(&format!("effort:     {level} (keyword '{kw}')\n")),
        None => out.push_str("effort:     none (no effort keyword; keep the current setting)\n"),
    }
    if let Some(w) = c.warning {
        out.push_str(&format!("warning:    {w}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanation_names_rule_keyword_words_and_effort() {
        let text = explanation("[check] please audit the ttl", &Config::default());
        assert!(text.contains("check mode: yes"), "{text}");
        assert!(text.contains("words:      4\n"), "{text}");
        assert!(
            text.contains("Opus 5.5 (claude-opus-5-5) -- rule 1 of 4, keyword 'ttl'"),
            "{text}"
        );
        assert!(
            text.contains("effort:     high (keyword 'audit')"),
            "{text}"
        );
    }

    #[test]
    fn explanation_reports_length_skip_and_default() {
        let text = explanation(
            "ok one two three four five six seven eight",
            &Config::default(),
        );
        assert!(
            text.contains("skipped:    Haiku 4.5 (only for prompts of at most 8 words)"),
            "{text}"
        );
        assert!(text.contains("default, no rule keyword found"), "{text}");
        assert!(text.contains("effort:     none"), "{text}");
    }
}
